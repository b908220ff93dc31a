// halc CPU backend: <simd/simd.h> is part of <metal_stdlib> here.
#pragma once
#include <metal_stdlib>
