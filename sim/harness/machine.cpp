// Native Verilator harness for the machine's top level (hdl/top.py).
//
// Commands on stdin, one per line; answers on stdout. The Python driver (sim/machine_sim.py)
// is the intended client; bit formats come from layouts.h.
//
//   reset                 reset the machine (empty board)
//   hm <bits>...          halfmoves on the setup port (no answer)
//   side <0|1>            the side to move (no answer)
//   W <unit> <table> <start> <v>...   evaluator table writes (no answer)
//   crc <unit> <table>    a table's CRC-32 as read back: "<crc> <cycles>"
//   history <key> <irreversible> <clock> ...  positions of the game before the root, oldest first (no answer)
//   history_clear         forget them (no answer)
//   hash_clear            empty the transposition table (no answer)
//   probe                 the table's entry for the position: "<hit> <depth> <bound> <value> <move word>"
//   key                   the Zobrist key of the position on the board: "<key>"
//   eval                  the evaluator's value of the position, White's view, once settled: "<value> <cycles>"
//   perft <depth>         hardware perft: "<leaves> <cycles>"
//   search <depth> <alpha> <beta> <generation> <features> <root move word> <keep killers>
//                         alpha-beta search: "<nodes> <cycles> <score> <best move word>"
//   trace <depth> <alpha> <beta> <generation> <features> <root move word> <keep killers>
//                         the same, after a line "node <key>" per node as it is entered
//   quit
#include <cstdint>
#include <cstdio>

#include "Vmachine.h"
#include "common.h"
#include "layouts.h"
#include "tables.h"

static Vmachine *top;
static uint64_t cycles = 0;

static void tick() { tick(top, cycles); }
static void transfer(CData &valid, const CData &ready) { transfer(top, cycles, valid, ready); }

// The history stream's payload (a StackEntry) is wider than 64 bits: three 32-bit words.
static void push_history(uint64_t key, uint64_t irreversible, uint64_t clock) {
    unsigned __int128 word = ((unsigned __int128)key << STACKENTRY_KEY_OFFSET)
                           | ((unsigned __int128)irreversible << STACKENTRY_IRREVERSIBLE_OFFSET)
                           | ((unsigned __int128)clock << STACKENTRY_CLOCK_OFFSET);
    for (int i = 0; i < 3; i++) top->history___05Fpayload[i] = (uint32_t)(word >> (32 * i));
    transfer(top->history___05Fvalid, top->history___05Fready);
}

// Start a job (a StartCommand, wider than 64 bits: three 32-bit words) and clock until it is
// done; with ``trace``, print the Zobrist key of each node as it is counted ("node <key>").
static void run(unsigned __int128 command, bool trace = false) {
    for (int i = 0; i < 3; i++) top->job___05Fstart___05Fpayload[i] = (uint32_t)(command >> (32 * i));
    top->job___05Fstart___05Fvalid = 1;
    tick();
    top->job___05Fstart___05Fvalid = 0; top->eval();
    uint64_t counted = 0;
    while (top->job___05Fbusy) {
        tick();
        if (trace && top->job___05Fcount != counted) {
            counted = top->job___05Fcount;
            std::printf("node %llu\n", (unsigned long long)top->key);
        }
    }
}

static void reset() {
    reset(top, cycles);
    for (int i = 0; i < 4; i++) tick();     // the sequencer reaches its idle loop
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vmachine;
    trace_open(top);
    top->clk = 0; top->rst = 0;
    top->setup___05Fvalid = 0; top->side_in___05Fvalid = 0; top->job___05Fstart___05Fvalid = 0;
    top->write___05Fvalid = 0; top->checksum_request___05Fvalid = 0; top->history_clear = 0; top->hash_clear = 0;
    top->history___05Fvalid = 0;
    reset();
    serve([](const std::string &cmd, std::istringstream &in) {
        if (cmd == "reset") { reset(); }
        else if (cmd == "now") { std::printf("%llu\n", (unsigned long long)cycles); std::fflush(stdout); }
        else if (cmd == "hm") {
            uint64_t bits;
            while (in >> bits) { top->setup___05Fpayload = bits; transfer(top->setup___05Fvalid, top->setup___05Fready); }
        }
        else if (cmd == "side") {
            int s; in >> s;
            top->side_in___05Fpayload = s;
            top->side_in___05Fvalid = 1;
            tick();
            top->side_in___05Fvalid = 0; top->eval();
        }
        else if (cmd == "W") { table_writes(top, cycles, in); }
        else if (cmd == "crc") { table_checksum(top, cycles, in); }
        else if (cmd == "history") {
            uint64_t key, irreversible, clock;
            while (in >> key >> irreversible >> clock) push_history(key, irreversible, clock);
        }
        else if (cmd == "hash_clear") {
            top->hash_clear = 1; tick(); top->hash_clear = 0; top->eval();
            while (top->hash_busy) tick();
        }
        else if (cmd == "probe") {
            for (int i = 0; i < 4; i++) tick();     // the last halfmove reaches the bus, the key settles, the entry is read
            uint64_t e = top->hash_probe;
            std::printf("%d %llu %llu %d %llu\n", (int)top->hash_hit,
                        (unsigned long long)field(e, HASHENTRY_DEPTH_OFFSET, HASHENTRY_DEPTH_WIDTH),
                        (unsigned long long)field(e, HASHENTRY_BOUND_OFFSET, HASHENTRY_BOUND_WIDTH),
                        (int)(int16_t)field(e, HASHENTRY_VALUE_OFFSET, HASHENTRY_VALUE_WIDTH),
                        (unsigned long long)field(e, HASHENTRY_MOVE_OFFSET, HASHENTRY_MOVE_WIDTH));
            std::fflush(stdout);
        }
        else if (cmd == "key") {
            for (int i = 0; i < 3; i++) tick();     // a halfmove taken is on the bus a cycle later, in the key two after that
            std::printf("%llu\n", (unsigned long long)top->key);
            std::fflush(stdout);
        }
        else if (cmd == "eval") {
            uint64_t begin = cycles;
            top->eval();
            while (!top->static_valid) tick();
            std::printf("%d %llu\n", (int)(int16_t)top->static_value, (unsigned long long)(cycles - begin));
            std::fflush(stdout);
        }
        else if (cmd == "history_clear") {
            top->history_clear = 1; tick(); top->history_clear = 0; top->eval();
        }
        else if (cmd == "perft") {
            uint64_t depth, config; in >> depth >> config;
            run(put(JOB_PERFT, STARTCOMMAND_JOB_OFFSET) | put(depth, STARTCOMMAND_DEPTH_OFFSET)
                | (unsigned __int128)config << STARTCOMMAND_CONFIG_OFFSET);
            std::printf("%llu %llu\n", (unsigned long long)top->job___05Fcount,
                        (unsigned long long)top->job___05Fcycles);
            std::fflush(stdout);
        }
        else if (cmd == "search" || cmd == "trace") {
            int64_t depth, alpha, beta, generation, features, root_move, keep_killers, config;
            in >> depth >> alpha >> beta >> generation >> features >> root_move >> keep_killers >> config;
            run(put(JOB_SEARCH, STARTCOMMAND_JOB_OFFSET) | put(depth, STARTCOMMAND_DEPTH_OFFSET)
                | put(alpha & 0xFFFF, STARTCOMMAND_ALPHA_OFFSET) | put(beta & 0xFFFF, STARTCOMMAND_BETA_OFFSET)
                | put(generation, STARTCOMMAND_GENERATION_OFFSET) | put(features, STARTCOMMAND_FEATURES_OFFSET)
                | (unsigned __int128)root_move << STARTCOMMAND_ROOT_MOVE_OFFSET
                | (unsigned __int128)keep_killers << STARTCOMMAND_KEEP_KILLERS_OFFSET
                | (unsigned __int128)config << STARTCOMMAND_CONFIG_OFFSET,
                cmd == "trace");
            std::printf("%llu %llu %d %llu\n", (unsigned long long)top->job___05Fcount,
                        (unsigned long long)top->job___05Fcycles, (int)(int16_t)top->job___05Fscore,
                        (unsigned long long)top->job___05Fbest_move);
            std::fflush(stdout);
        }
        else return false;
        return true;
    });
    top->final();
    delete top;
    return 0;
}
