#!/usr/bin/env bash
# Rebuilds the test kernels (NAME.comp -> NAME.spv, glslc, vulkan1.0) and validates them.
#   bash vulkan-reference/tests/kernels/build.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for src in *.comp; do
    out="${src%.comp}.spv"
    glslc --target-env=vulkan1.0 -o "$out" "$src"
    spirv-val --target-env vulkan1.0 "$out"
done
