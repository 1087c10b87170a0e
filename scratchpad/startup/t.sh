#!/bin/bash
# usage: t.sh N cmd... → median wall ms
n=$1; shift
for i in $(seq 1 $n); do
  s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(( (e-s)/100000 ))
done | sort -n | awk '{a[NR]=$1} END {printf "median %.1f ms  min %.1f\n", a[int((NR+1)/2)]/10, a[1]/10}'
