train --out /dev/null
