// A deliberately broken copy: a test that reads beside the checkout.
const char* kOutside = AVA_SOURCE_DIR "/../recordings/stream.sse";
const char* kClimb = "../../../recordings/stream.sse";
