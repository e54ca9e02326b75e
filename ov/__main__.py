from ov.cli.entry import entry

# Guarded: worker processes (forkserver/spawn) import the main module again.
if __name__ == "__main__":
    entry()
