"""`python -m tools.conformance run|replay FILE...`: check the engine against conformance case files."""
import sys

from tools.conformance import main

sys.exit(main())
