from specviz.distill.cli import main

raise SystemExit(main())
