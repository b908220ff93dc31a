#!/usr/bin/env bash
# Rebuilds the test kernels (NAME.comp -> NAME.spv, glslc) and validates them.
# The target environment is vulkan1.0 unless the source has a
# `// target-env: vulkan1.x` line.
#   bash vulkan-reference/tests/kernels/build.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
for src in *.comp; do
    out="${src%.comp}.spv"
    env=$(sed -n 's|^// target-env: *||p' "$src" | head -n 1)
    env=${env:-vulkan1.0}
    glslc --target-env="$env" -o "$out" "$src"
    spirv-val --target-env "$env" "$out"
done
