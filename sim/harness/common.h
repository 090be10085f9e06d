// Clocking and stream transfers shared by the native harnesses (any Verilated top with
// clk and rst). ``cycles`` counts rising edges.
#pragma once
#include <cstdint>

#include "verilated.h"

template <class Top> inline void tick(Top *top, uint64_t &cycles) {
    top->clk = 0; top->eval();
    top->clk = 1; top->eval();
    cycles++;
}

template <class Top> inline void reset(Top *top, uint64_t &cycles) {
    top->rst = 1; tick(top, cycles); tick(top, cycles); top->rst = 0; top->eval();
}

// Hold valid until a clock edge takes the transfer (ready high before the edge).
template <class Top> inline void transfer(Top *top, uint64_t &cycles, CData &valid, const CData &ready) {
    valid = 1;
    top->eval();
    while (!ready) { tick(top, cycles); top->eval(); }
    tick(top, cycles);
    valid = 0;
    top->eval();
}
