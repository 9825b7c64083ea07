from pathways.cli import main

main()
