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

static Vevaluator *top;
static uint64_t cycles = 0;
static uint64_t last_input = 0;     // the cycle of the last input that changes the value

static inline uint64_t field(uint64_t word, int offset, int width) {
    return (word >> offset) & ((1ull << width) - 1);
}
static inline uint64_t put(uint64_t value, int offset) { return value << offset; }

static void tick() { tick(top, cycles); }
static void reset() { reset(top, cycles); }

// A transfer that changes the value: remember its cycle.
static void transfer(CData &valid, const CData &ready) {
    transfer(top, cycles, valid, ready);
    last_input = cycles - 1;
}

static void write(uint64_t unit, uint64_t table, uint64_t index, uint64_t data) {
    top->write___05Fpayload = put(index, TABLEWRITE_ADDRESS_INDEX_OFFSET)
                            | put(table, TABLEWRITE_ADDRESS_TABLE_OFFSET)
                            | put(unit, TABLEWRITE_ADDRESS_UNIT_OFFSET)
                            | put(data, TABLEWRITE_DATA_OFFSET);
    transfer(top->write___05Fvalid, top->write___05Fready);
}

static void set_side(int side) {
    if (top->side != side) last_input = cycles;
    top->side = side;
    top->eval();
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vevaluator;
    top->clk = 0; top->rst = 0; top->side = 0; top->clear = 0;
    top->halfmove___05Fvalid = 0; top->write___05Fvalid = 0; top->checksum_request___05Fvalid = 0;
    reset();
    serve([](const std::string &cmd, std::istringstream &in) {
        if (cmd == "reset") { reset(); }
        else if (cmd == "W") {
            uint64_t unit, table, index, data;
            in >> unit >> table >> index;
            while (in >> data) write(unit, table, index++, data);
        }
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
        else if (cmd == "crc") {
            uint64_t unit, table; in >> unit >> table;
            uint64_t start = cycles;
            top->checksum_request___05Fpayload = put(unit, TABLESELECT_UNIT_OFFSET) | put(table, TABLESELECT_TABLE_OFFSET);
            transfer(top->checksum_request___05Fvalid, top->checksum_request___05Fready);
            while (!field(top->checksum, CHECKSUMRESULT_VALID_OFFSET, 1)) tick();
            std::printf("%llu %llu\n", (unsigned long long)field(top->checksum, CHECKSUMRESULT_CRC_OFFSET, 32),
                        (unsigned long long)(cycles - start));
            std::fflush(stdout);
        }
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
