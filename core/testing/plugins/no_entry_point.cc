// An ordinary shared library: it exports a function, but not the plugin
// entry point.

extern "C" int SwitchyardNotAPlugin() { return 42; }
