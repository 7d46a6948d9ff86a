#!/usr/bin/env bash
# Regenerates the sample experiments from their scenarios (deterministic for each
# scenario's seed): sample_videos/<name>/ from sample_videos/scenarios/<name>.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
for s in sample_videos/scenarios/*.yaml; do
  n=$(basename "$s" .yaml)
  rm -rf "sample_videos/$n"
  build/impactcv synth "$s" -o "sample_videos/$n"
done
du -sh sample_videos
