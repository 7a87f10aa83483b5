train --traces tests/data
