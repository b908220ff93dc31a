// Shared by every kernel of the example: the activation a define selects.
float activate(float x) {
#if defined(RELU)
    return max(x, 0.0);
#else
    return x;
#endif
}
