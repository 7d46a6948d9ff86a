#!/usr/bin/env bash
# make demo: the most complete real job impactcv can do at this commit.
# Now: validate the bundled example experiment. (The solver's reference cases and
# then the whole pipeline on sample_videos/ replace this as they land.)
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== impactcv check tests/data/example/experiment.yaml"
build/impactcv check tests/data/example/experiment.yaml
