#!/usr/bin/env bash
# make demo: the most complete real job impactcv can do at this commit.
# `impactcv run` on the first sample experiment (sample_videos/, rendered by synth
# with exact truth): calibration from its board images, sync, tracking,
# triangulation, the analysis and the model, report.html and the exports, compared
# with the sample's truth.json (it fails loudly beyond the analysis tolerances). Then the impact solver's reference cases
# (the source documents' published numbers) and one CASE.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
sample=sample_videos/01_rod_slope45_stereo
out=build/demo/01_rod_slope45_stereo
rm -rf "$out"
echo "== impactcv run $sample/experiment.yaml -o $out --truth $sample/truth.json"
build/impactcv run "$sample/experiment.yaml" -o "$out" --truth "$sample/truth.json"
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
