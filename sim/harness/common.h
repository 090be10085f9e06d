// Clocking and stream transfers shared by the native harnesses (any Verilated top with
// clk and rst). ``cycles`` counts rising edges.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "verilated.h"

// Waveforms, in a trace build only (sim/verilator.py builds one when SUPREM_TRACE names a file:
// VCD, or FST if the name ends in .fst): SUPREM_TRACE_FROM is the first cycle written (0),
// SUPREM_TRACE_CYCLES how many (all). Every signal of the top under its Amaranth name, a 10 ns
// clock; the file is complete when the harness ends. A normal build has none of this.
#if defined(SUPREM_TRACE_VCD)
#define SUPREM_TRACE
#include "verilated_vcd_c.h"
using TraceFile = VerilatedVcdC;
#elif defined(SUPREM_TRACE_FST)
#define SUPREM_TRACE
#include "verilated_fst_c.h"
using TraceFile = VerilatedFstC;
#endif

#ifdef SUPREM_TRACE
struct Trace {
    TraceFile *file = nullptr;
    uint64_t from = 0, until = UINT64_MAX;
    ~Trace() { if (file) { file->close(); delete file; } }
};
inline Trace &trace_state() { static Trace trace; return trace; }

inline uint64_t trace_setting(const char *name, uint64_t otherwise) {
    const char *text = std::getenv(name);
    return text && *text ? std::strtoull(text, nullptr, 10) : otherwise;
}

// Open the trace of ``top`` (after its construction, before its first eval).
template <class Top> inline void trace_open(Top *top) {
    const char *path = std::getenv("SUPREM_TRACE");
    if (!path || !*path) return;
    Trace &trace = trace_state();
    Verilated::traceEverOn(true);
    trace.file = new TraceFile;
    top->trace(trace.file, 99);
    trace.file->open(path);
    if (!trace.file->isOpen()) { std::fprintf(stderr, "cannot write the trace %s\n", path); std::exit(2); }
    trace.from = trace_setting("SUPREM_TRACE_FROM", 0);
    uint64_t count = trace_setting("SUPREM_TRACE_CYCLES", UINT64_MAX - trace.from);
    trace.until = trace.from + count;
}

inline void trace_dump(uint64_t cycles, int phase) {
    Trace &trace = trace_state();
    if (trace.file && cycles >= trace.from && cycles < trace.until) trace.file->dump(10000 * cycles + 5000 * phase);
}
#else
template <class Top> inline void trace_open(Top *) {}
inline void trace_dump(uint64_t, int) {}
#endif

template <class Top> inline void tick(Top *top, uint64_t &cycles) {
    top->clk = 0; top->eval(); trace_dump(cycles, 0);
    top->clk = 1; top->eval(); trace_dump(cycles, 1);
    cycles++;
}

// Two cycles of reset, and a third for the tops whose reset is registered (sim/verilator.py's
// RegisteredReset: it reaches the design a cycle late).
template <class Top> inline void reset(Top *top, uint64_t &cycles) {
    top->rst = 1; tick(top, cycles); tick(top, cycles); top->rst = 0; tick(top, cycles); top->eval();
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
