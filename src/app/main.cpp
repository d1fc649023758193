// ketch: a Kafka-compatible broker and its command line, one binary
// (app/process_main.cc).
#include "app/process_main.h"

int main(int argc, char** argv) { return ketch::app::process_main(argc, argv); }
