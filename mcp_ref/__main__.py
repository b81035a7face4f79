from .tooling.cli import main

raise SystemExit(main())
