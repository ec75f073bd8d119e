#!/bin/sh
# Writes tests/fixtures/porter2.tsv: every 8th (word, stem) pair of the official Snowball
# English fixture, plus every pair with an apostrophe. Run once by hand with a checkout of
# https://github.com/snowballstem/snowball-data (commit ca1919d, 2025-10-28, Snowball 3.x):
#   sh make-porter2.sh /path/to/snowball-data
set -eu
data="$1/english"
paste "$data/voc.txt" "$data/output.txt" |
    awk -F '\t' 'NR % 8 == 1 || index($1, "\047") > 0' >tests/fixtures/porter2.tsv
wc -l tests/fixtures/porter2.tsv
