"""Reading and writing files safely, for every package: atomic writes and locked
read-check-write saves (``atomic.py``), limits on untrusted input (``untrusted.py``), and the
on-disk cache of parsed files (``parse_cache.py``). Imports nothing else of reviewtui."""
