"""HTTP routes: the service's 21 operations under /api, and the simulator's own /_sim test controls."""
