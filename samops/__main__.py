import sys

from samops.cli import main

sys.exit(main())
