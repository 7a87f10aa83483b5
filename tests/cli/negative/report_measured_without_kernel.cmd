report --sample --measured-us 5 -o /tmp/loom-neg-report2.html
