from .cli import main
from .cli_args import exit_from_module

exit_from_module(main())
