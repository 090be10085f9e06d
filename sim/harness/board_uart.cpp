// The simulated board with its UART (hdl/link/top.py, UartMachine): the host's bytes are
// sent on the rx line bit by bit, 8N1, at the divisor given as the first argument (cycles per
// bit, as the top was built with), and the tx line is sampled in the middle of each bit. The
// loop and the pseudo-terminal: board.h.
#include "Vboard_uart.h"
#include "board.h"

struct UartLine {
    int divisor;
    // Sending: the bits of the current byte (start, 8 data, stop), the cycles left in this one.
    int send_bit = -1, send_timer = 0; uint16_t send_frame = 0;
    // Receiving: -1 idle, else the bit being sampled; cycles to its middle.
    int recv_bit = -1, recv_timer = 0; uint8_t recv_byte = 0;

    // Cycles the lines have been idle: a byte just sent is still in the top's synchroniser
    // and receiver for a bit-time or so, so the board is quiet only after a few of them.
    int line_idle = 0;

    void start(Vboard_uart *top) { top->rx = 1; send_bit = recv_bit = -1; line_idle = 0; }
    bool quiet(Vboard_uart *top) { return top->idle && line_idle > 3 * divisor; }
    void cycle(Vboard_uart *top, std::deque<uint8_t> &incoming, std::vector<uint8_t> &outgoing) {
        if (send_bit < 0 && !incoming.empty()) {
            send_frame = (uint16_t)(1u << 9 | incoming.front() << 1);
            incoming.pop_front();
            send_bit = 0; send_timer = divisor;
        }
        top->rx = send_bit < 0 ? 1 : (send_frame >> send_bit) & 1;
        if (send_bit >= 0 && --send_timer == 0) {
            send_timer = divisor;
            if (++send_bit == 10) send_bit = -1;
        }
        top->eval();
        line_idle = (send_bit < 0 && recv_bit < 0 && top->tx) ? line_idle + 1 : 0;
        if (recv_bit < 0) {
            if (!top->tx) { recv_bit = 0; recv_timer = divisor / 2; }      // a start bit begins
        } else if (--recv_timer == 0) {
            recv_timer = divisor;
            if (recv_bit >= 1 && recv_bit <= 8) recv_byte = (uint8_t)(recv_byte >> 1 | (top->tx ? 0x80 : 0));
            if (recv_bit == 9) {
                if (top->tx) outgoing.push_back(recv_byte);
                recv_bit = -1;
            } else {
                recv_bit++;
            }
        }
    }
};

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    UartLine line;
    line.divisor = argc > 1 ? std::atoi(argv[1]) : 4;
    return serve_board<Vboard_uart>(line);
}
