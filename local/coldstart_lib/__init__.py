"""The cold-start benchmark's parts; local/coldstart.py runs them (through local/bench-coldstart)."""
