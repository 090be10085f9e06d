// The simulated board: the Verilated board top (hdl/link/board.py, LinkedMachine) with its
// link bytes on a pseudo-terminal, so a host opens it like the serial port of a real board.
//
// On start it prints the terminal's device path on stdout ("device <path>"), then runs: bytes
// from the terminal enter the link one per cycle, bytes the link sends go to the terminal.
// While the top is idle (no frame, no reply, no job) it sleeps until a byte arrives. It ends
// when its standard input closes (the process that started it went away) or reads "quit";
// "reset" on standard input resets the top as a board's reset button would (answer "reset").
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <termios.h>
#include <unistd.h>
#include <vector>

#include "Vboard.h"
#include "common.h"

static Vboard *top;
static uint64_t cycles = 0;

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) { std::perror("pseudo-terminal"); return 1; }
    const char *name = ptsname(master);
    // Keep the terminal's other side open, in raw mode, so that bytes pass unchanged and the
    // terminal survives hosts opening and closing it.
    int slave = open(name, O_RDWR | O_NOCTTY);
    if (slave < 0) { std::perror(name); return 1; }
    struct termios raw;
    tcgetattr(slave, &raw);
    cfmakeraw(&raw);
    tcsetattr(slave, TCSANOW, &raw);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);

    top = new Vboard;
    top->clk = 0; top->rst = 0; top->rx___05Fvalid = 0; top->tx___05Fready = 1;
    reset(top, cycles);
    std::printf("device %s\n", name);
    std::fflush(stdout);

    std::deque<uint8_t> incoming;
    std::vector<uint8_t> outgoing;
    uint8_t buffer[4096];
    for (;;) {
        // Sleep while nothing can happen; otherwise only look at the terminal and stdin.
        bool quiet = incoming.empty() && top->idle;
        struct pollfd fds[2] = {{master, POLLIN, 0}, {0, POLLIN, 0}};
        int ready = poll(fds, 2, quiet ? 1000 : 0);
        if (ready > 0 && (fds[1].revents & (POLLIN | POLLHUP))) {
            ssize_t n = read(0, buffer, sizeof buffer);
            if (n <= 0) break;
            std::string command((char *)buffer, n);
            if (command.find("quit") != std::string::npos) break;
            if (command.find("reset") != std::string::npos) {   // the board's reset button
                incoming.clear();
                reset(top, cycles);
                std::printf("reset\n");
                std::fflush(stdout);
            }
        }
        if (ready > 0 && (fds[0].revents & POLLIN)) {
            ssize_t n = read(master, buffer, sizeof buffer);
            for (ssize_t i = 0; i < n; i++) incoming.push_back(buffer[i]);
        }
        // A slice of cycles: bytes in at one per cycle, bytes out as the link gives them.
        for (int i = 0; i < 4096; i++) {
            top->rx___05Fvalid = !incoming.empty();
            if (!incoming.empty()) top->rx___05Fpayload = incoming.front();
            top->eval();
            if (top->tx___05Fvalid) outgoing.push_back(top->tx___05Fpayload);
            bool took = top->rx___05Fvalid;     // the link is always ready
            tick(top, cycles);
            if (took) incoming.pop_front();
            if (incoming.empty() && top->idle && !top->tx___05Fvalid) break;
        }
        top->rx___05Fvalid = 0;
        top->eval();
        size_t written = 0;
        while (written < outgoing.size()) {
            ssize_t n = write(master, outgoing.data() + written, outgoing.size() - written);
            if (n > 0) written += n;
            else if (errno == EAGAIN) { struct pollfd out = {master, POLLOUT, 0}; poll(&out, 1, 100); }
            else break;
        }
        outgoing.clear();
    }
    close(slave);
    close(master);
    delete top;
    return 0;
}
