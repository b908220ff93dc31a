#!/usr/bin/env python3
"""Lists the compute-only, buffer-only Amber tests of a corpus directory (one path per line)."""
import os, re, sys
IMG = re.compile(r'\b(AS\s+(storage_image|sampled_image|combined_image_sampler|sampler|uniform_texel_buffer|storage_texel_buffer)|^\s*IMAGE\b|^\s*SAMPLER\b|BIND\s+SAMPLER)', re.M)
GFX = re.compile(r'^\s*(SHADER\s+(vertex|fragment|geometry|tessellation_\w+|ray_\w+|any_hit|closest_hit|miss|intersection|callable|multi)|PIPELINE\s+(graphics|raytracing))\b', re.M)
VK_GFX = re.compile(r'^\s*\[(vertex|fragment|geometry|tessellation \w+)[^\]]*\]|^\s*(draw|clear)\b|^\s*(uniform|sampler|image|texel)[^\n]*\b(texture|sampler|image)\b', re.M)
def kind(p):
    t = open(p, errors='replace').read()
    if p.endswith('.vkscript') or '[compute shader' in t:
        if VK_GFX.search(t) or '[compute shader' not in t: return None
        return 'vkscript'
    if GFX.search(t) or 'SHADER compute' not in t: return None
    if IMG.search(t): return None
    if re.search(r'\bshaderFloat64\b|\bFloat64\b', t): return None
    return 'amber'
for root in sys.argv[1:]:
    for d, _, fs in sorted(os.walk(root)):
        for f in sorted(fs):
            if f.endswith(('.amber', '.vkscript')):
                p = os.path.join(d, f)
                if kind(p): print(p)
