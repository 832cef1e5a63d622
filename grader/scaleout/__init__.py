"""Scale-out: many submissions at once, on local worker processes or a Dask cluster."""
