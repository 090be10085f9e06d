// Native Verilator harness for the evaluator (hdl/eval/evaluator.py).
//
// Commands on stdin, one per line; answers on stdout. The Python driver (sim/eval_sim.py) is
// the intended client; bit formats come from layouts.h, generated from the Amaranth layouts.
//
//   reset                          reset the whole evaluator
//   W <unit> <table> <start> <v>...  download writes to consecutive entries (no answer)
//   hm <bits>...                   halfmoves, one per cycle (no answer)
//   side <0|1>                     set the side to move (no answer)
//   clear                          zero the accumulators (no answer)
//   value                          clock until valid: "<value> <cycles since the last input>"
//   crc <unit> <table>             checksum read-back: "<crc> <cycles>"
//   spin <n>                       n halfmoves back to back (a knight placed on and removed from
//                                  each square in turn), for simulation speed: "<cycles>"
//   cycles                         "<cycles since start>"
//   quit
#include <cstdint>
#include <cstdio>

#include "Vevaluator.h"
#include "common.h"
#include "layouts.h"
#include "tables.h"

static Vevaluator *top;
static uint64_t cycles = 0;
static uint64_t last_input = 0;     // the cycle of the last input that changes the value

static void tick() { tick(top, cycles); }
static void reset() { reset(top, cycles); }

// A transfer that changes the value: remember its cycle.
static void transfer(CData &valid, const CData &ready) {
    transfer(top, cycles, valid, ready);
    last_input = cycles - 1;
}

static void set_side(int side) {
    if (top->side != side) last_input = cycles;
    top->side = side;
    top->eval();
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vevaluator;
    trace_open(top);
    top->clk = 0; top->rst = 0; top->side = 0; top->clear = 0;
    top->halfmove___05Fvalid = 0; top->write___05Fvalid = 0; top->checksum_request___05Fvalid = 0;
    reset();
    serve([](const std::string &cmd, std::istringstream &in) {
        if (cmd == "reset") { reset(); }
        else if (cmd == "W") { table_writes(top, cycles, in); last_input = cycles - 1; }
        else if (cmd == "hm") {
            uint64_t bits;
            while (in >> bits) {
                top->halfmove___05Fpayload = bits;
                transfer(top->halfmove___05Fvalid, top->halfmove___05Fready);
            }
        }
        else if (cmd == "side") { int s; in >> s; set_side(s); }
        else if (cmd == "clear") {
            top->clear = 1; top->eval(); last_input = cycles; tick(); top->clear = 0; top->eval();
        }
        else if (cmd == "value") {
            top->eval();
            while (!top->valid) { tick(); top->eval(); }
            std::printf("%d %llu\n", (int)(int16_t)top->value, (unsigned long long)(cycles - last_input));
            std::fflush(stdout);
        }
        else if (cmd == "crc") { table_checksum(top, cycles, in); }
        else if (cmd == "spin") {
            uint64_t n, start = cycles; in >> n;
            for (uint64_t i = 0; i < n; i++) {
                top->halfmove___05Fpayload = put(i & 1 ? 0 : 1, HALFMOVE_OP_OFFSET)
                                           | put((i >> 1) & 63, HALFMOVE_SQUARE_OFFSET) | put(2, HALFMOVE_PIECE_OFFSET);
                transfer(top->halfmove___05Fvalid, top->halfmove___05Fready);
            }
            std::printf("%llu\n", (unsigned long long)(cycles - start));
            std::fflush(stdout);
        }
        else if (cmd == "cycles") { std::printf("%llu\n", (unsigned long long)cycles); std::fflush(stdout); }
        else return false;
        return true;
    });
    top->final();
    delete top;
    return 0;
}
