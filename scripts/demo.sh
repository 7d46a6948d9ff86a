#!/usr/bin/env bash
# make demo: the most complete real job impactcv can do at this commit.
# Validates the bundled example experiment, then runs the impact solver's bundled
# reference cases (the source documents' published numbers, solver/reference_cases.c)
# and one CASE.yaml. (The whole pipeline on sample_videos/ replaces this as it lands.)
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== impactcv check tests/data/example/experiment.yaml"
build/impactcv check tests/data/example/experiment.yaml
echo
echo "== impactcv solve --reference   (computed against published values, spec sec. 7)"
build/impactcv solve --reference
echo
case_yaml=$(mktemp --suffix=.yaml)
trap 'rm -f "$case_yaml"' EXIT
cat > "$case_yaml" <<'YAML'
mass: 0.169
inertia: [[1.312e-3,0,0],[0,7.7e-6,0],[0,0,1.312e-3]]
orientation: {euler213: [0.0, 0.785, 0.0]}
contact: [0, -0.1524, 0]
v: [0.5, -1.9, 0.0]
omega: [0.0, 0.0, 0.0]
mu: 0.25
e_n: 0.3
restitution: stronge
method: exact
planar: false
YAML
echo "== impactcv solve CASE.yaml   (the contract's example rod, sliding along x)"
build/impactcv solve "$case_yaml"
