// The simulated board's loop, shared by its two tops (board.cpp: the link's byte streams;
// board_uart.cpp: the UART's serial lines): a pseudo-terminal whose other side the host opens
// like a board's serial port.
//
// On start it prints the terminal's device path on stdout ("device <path>"), then runs: bytes
// from the terminal go to ``Line::cycle`` (which feeds the top and collects what it sends),
// bytes the top sends go to the terminal. While ``Line::quiet`` (no frame, no reply, no job,
// nothing on the line) it sleeps until a byte arrives. It ends when its standard input closes
// (the process that started it went away) or reads "quit"; "reset" resets the top as a
// board's reset button would (answer "reset").
#pragma once
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

#include "common.h"

// Cycles simulated between two looks at the terminal.
constexpr int SLICE_CYCLES = 256;

template <class Top, class Line> int serve_board(Line &line) {
    uint64_t cycles = 0;
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

    Top *top = new Top;
    trace_open(top);
    top->clk = 0; top->rst = 0;
    line.start(top);
    reset(top, cycles);
    std::printf("device %s\n", name);
    std::fflush(stdout);

    std::deque<uint8_t> incoming;
    std::vector<uint8_t> outgoing;
    uint8_t buffer[4096];
    for (;;) {
        // Sleep while nothing can happen; otherwise only look at the terminal and stdin.
        bool quiet = incoming.empty() && line.quiet(top);
        struct pollfd fds[2] = {{master, POLLIN, 0}, {0, POLLIN, 0}};
        int ready = poll(fds, 2, quiet ? 1000 : 0);
        if (ready > 0 && (fds[1].revents & (POLLIN | POLLHUP))) {
            ssize_t n = read(0, buffer, sizeof buffer);
            if (n <= 0) break;
            std::string command((char *)buffer, n);
            if (command.find("quit") != std::string::npos) break;
            if (command.find("reset") != std::string::npos) {   // the board's reset button
                incoming.clear();
                line.start(top);
                reset(top, cycles);
                std::printf("reset\n");
                std::fflush(stdout);
            }
        }
        if (ready > 0 && (fds[0].revents & POLLIN)) {
            ssize_t n = read(master, buffer, sizeof buffer);
            for (ssize_t i = 0; i < n; i++) incoming.push_back(buffer[i]);
        }
        // A slice of cycles: bytes in at one per cycle, bytes out as the link gives them. The
        // slice is short (about a millisecond of simulation) because a reply waits for its end:
        // the host's STATUS polls during a search are answered that much sooner.
        for (int i = 0; i < SLICE_CYCLES; i++) {
            line.cycle(top, incoming, outgoing);
            tick(top, cycles);
            if (incoming.empty() && line.quiet(top)) break;
        }
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
