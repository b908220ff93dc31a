#version 450
// Never ends: an atomic increment in an endless loop.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Counter { uint spins; } c;
void main() {
    for (;;) {
        atomicAdd(c.spins, 1u);
    }
}
