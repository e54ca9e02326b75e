from ov.cli.main import main

main()
