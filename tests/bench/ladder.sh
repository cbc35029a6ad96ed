#!/bin/sh
# The bot ladder (issue 13): search, heuristic and random bots head to head in
# one 6-faction Basic game, two seats each, the seats rotated so that every
# bot plays every faction: GAMES games in all (a third per rotation, seeds
# SEED.. in a row).  Prints each bot's win rate per seat with its 95% Wilson
# interval, the victories by deciding rule, and games/s for each rotation.
#   sh tests/bench/ladder.sh [BUILD] [GAMES] [SEED] [JOBS] [P,H,W]
# (P,H,W: the search bot's budget, simulate --search-budget; default 4,8,4)
# A game has two seats of each bot; a seat's win counts once (an alliance of
# two seats counts both).  The interval treats the seats as independent
# trials (the two seats of one bot in one game are not quite: read the bounds
# as approximate).
BUILD=${1:-build}
GAMES=${2:-${LADDER_GAMES:-210}}
SEED=${3:-1}
JOBS=${4:-2}
BUDGET=${5:+--search-budget $5}
set -e
per=$(( (GAMES + 2) / 3 ))
out=$(mktemp)
trap 'rm -f "$out"' EXIT
seed=$SEED
for lineup in search,heuristic,random,search,heuristic,random \
              random,search,heuristic,random,search,heuristic \
              heuristic,random,search,heuristic,random,search; do
  echo "lineup $lineup" >>"$out"
  "$BUILD/mentat" simulate --games "$per" --seed "$seed" --jobs "$JOBS" --no-invariants --bots "$lineup" $BUDGET >>"$out"
  seed=$((seed + per))
done
awk -v per="$per" '
function wilson(k, n,   p, z, d, c, h) {
  z = 1.959964; p = k / n; d = 1 + z * z / n; c = (p + z * z / (2 * n)) / d
  h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
  return sprintf("%5.1f%%  [%5.1f%%, %5.1f%%]", 100 * p, 100 * (c - h), 100 * (c + h))
}
/^lineup / { nl = split($2, bot, ","); seat = 0; rot++; next }
/ games \(/ { games += $1; fails += substr($3, 2); line[rot] = $0 }
/^  [a-z_]+ +[0-9.]+% \[/ {
  b = bot[++seat]; w = int($2 * per / 100 + 0.5)
  wins[b] += w; seats[b] += per; fw[b "," $1] += w
  if (!(b in seen)) { seen[b] = 1; order[++nb] = b }
}
/^  [0-9.]+ +[0-9]+  / { vict[$1] += $2; title[$1] = substr($0, index($0, $3)) }
/^  no winner/ { vict["none"] += $3; title["none"] = "no winner" }
END {
  printf "%d games (%d failed), 3 rotations of %d; win rate per seat (2 seats per bot per game), 95%% Wilson interval:\n", games, fails, per
  for (i = 1; i <= nb; i++) printf "  %-10s %5d wins in %5d seat-games  %s\n", order[i], wins[order[i]], seats[order[i]], wilson(wins[order[i]], seats[order[i]])
  print "victories by deciding rule:"
  sort = "sort -k2,2nr"
  for (v in vict) if (vict[v]) printf "  %-12s %5d  %s\n", v, vict[v], title[v] | sort
  close(sort)
  print "speed per rotation (the search seats take almost all of the time):"
  for (r = 1; r <= rot; r++) print "  " line[r]
}' "$out"
