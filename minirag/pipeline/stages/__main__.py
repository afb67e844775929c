from .table import main

raise SystemExit(main())
