// A shared object that needs a symbol no library provides: dlopen with
// RTLD_NOW refuses it.

extern "C" int SwitchyardTestSymbolDefinedNowhere();

extern "C" int SwitchyardUsesAMissingSymbol() {
  return SwitchyardTestSymbolDefinedNowhere();
}
