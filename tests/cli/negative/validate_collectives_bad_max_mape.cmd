validate --collectives --max-mape -1
