// The simulated board with the link's byte streams (hdl/link/top.py, LinkedMachine): a byte
// a cycle each way. The loop and the pseudo-terminal: board.h.
#include "Vboard.h"
#include "board.h"

struct StreamLine {
    void start(Vboard *top) { top->rx___05Fvalid = 0; top->tx___05Fready = 1; }
    bool quiet(Vboard *top) { return top->idle && !top->tx___05Fvalid; }
    // Before a clock edge: offer the next byte, collect the byte sent; the edge takes both.
    void cycle(Vboard *top, std::deque<uint8_t> &incoming, std::vector<uint8_t> &outgoing) {
        top->rx___05Fvalid = !incoming.empty();
        if (!incoming.empty()) { top->rx___05Fpayload = incoming.front(); incoming.pop_front(); }
        top->eval();
        if (top->tx___05Fvalid) outgoing.push_back(top->tx___05Fpayload);
    }
};

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    StreamLine line;
    return serve_board<Vboard>(line);
}
