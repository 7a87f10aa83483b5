validate --max-mape nan
