from .commands.args import exit_from_module
from .commands.main import main

exit_from_module(main())
