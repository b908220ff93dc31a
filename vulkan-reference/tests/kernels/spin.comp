#version 450
// Spins until the host writes a non-zero `stop`, counting iterations in `spins`
// (atomics in the loop: the loop has side effects and cannot be removed).
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Control { uint stop; uint spins; } ctl;
void main() {
    while (atomicAdd(ctl.stop, 0u) == 0u) {
        atomicAdd(ctl.spins, 1u);
    }
}
