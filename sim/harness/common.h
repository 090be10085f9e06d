// Clocking and stream transfers shared by the native harnesses (any Verilated top with
// clk and rst). ``cycles`` counts rising edges.
#pragma once
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

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

// The command loop: a line per command, ``handle(cmd, args)`` returns false for a command it
// does not know (answered "error unknown command ..."); "quit" or the end of input stops.
template <class Handle> inline void serve(Handle handle) {
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string cmd;
        in >> cmd;
        if (cmd.empty()) continue;
        if (cmd == "quit") break;
        if (!handle(cmd, in)) { std::printf("error unknown command %s\n", cmd.c_str()); std::fflush(stdout); }
    }
}
