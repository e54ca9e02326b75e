"""The command line: an adapter that parses arguments, calls one core function, renders the result.

It is the only package that imports typer, rich or questionary. Errors of the
core are turned into one message and exit code here (:mod:`ov.cli.main`);
``docgen`` writes ``docs/commands.md`` from the app itself.
"""
