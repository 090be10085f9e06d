// Native Verilator harness for the move generator (hdl/movegen/generator.py).
//
// Reads commands on stdin, one per line, and answers on stdout. The Python driver
// (sim/movegen_sim.py) is the only intended client; bit formats come from layouts.h, which
// is generated from the Amaranth layouts, so no field position is written twice. Verilator
// spells the "__" of Amaranth port names as "___05F".
//
//   reset                 clear the board (every plane to zero)
//   hm <bits>...          apply halfmoves (no answer)
//   side <0|1>            set the side to move (no answer)
//   config <bits>         set the rules and capture order, a GenConfig (no answer)
//   req <bits>            one request; answers "<found> <move> <key> <piece> <victim> <may_check>
//                         <count> <cycles>"
//   held <gap> <bits> <hm>... / <hm>...
//                         a request offered while the board changes (the search's PREFETCH
//                         with its MAKE after an UNMAKE): the halfmoves before "/" one a cycle,
//                         the request offered <gap> (0 or 1) cycles after the last of them and
//                         taken at once, then the side toggled and the halfmoves after "/" one
//                         a cycle; answers as req (cycles from the request's offer)
//   gen <ply> <mode>      FIRST then NEXT until exhausted; a line per move as for req, then
//                         "end <moves> <cycles>"
//   state                 "<in_check> <king_attacked> <attacks white> <attacks black> <planes...>
//                         <forced> <moveless> <captures_open> <checks_open>"
//   perft <depth>         legal leaf count by make/unmake from the current position, with the
//                         side as set: "<count> <cycles>"
//   cycles                "<cycles since start>"
//   quit
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "Vmovegen.h"
#include "common.h"
#include "layouts.h"

static Vmovegen *top;
static uint64_t cycles = 0;

static inline uint64_t field(uint64_t word, int offset, int width) {
    return (word >> offset) & ((width == 64) ? ~0ull : ((1ull << width) - 1));
}
static inline uint64_t put(uint64_t value, int offset) { return value << offset; }

static void tick() { tick(top, cycles); }

static uint64_t plane(const VlWide<10> &w, int index) {
    return (uint64_t)w[2 * index] | ((uint64_t)w[2 * index + 1] << 32);
}
static uint64_t wide64(const VlWide<4> &w, int index) {
    return (uint64_t)w[2 * index] | ((uint64_t)w[2 * index + 1] << 32);
}

static void reset() { reset(top, cycles); }
static void transfer(CData &valid, const CData &ready) { transfer(top, cycles, valid, ready); }

static void halfmove(int op, int square, int piece) {
    top->halfmove___05Fpayload = put(op, HALFMOVE_OP_OFFSET) | put(square, HALFMOVE_SQUARE_OFFSET)
                               | put(piece, HALFMOVE_PIECE_OFFSET);
    transfer(top->halfmove___05Fvalid, top->halfmove___05Fready);
}

static void set_side(int side) { top->side = side; top->eval(); }

// Clock until the generator takes requests again: board and side have reached every output.
static void settle() {
    top->eval();
    while (!top->search___05Frequest___05Fready) { tick(); top->eval(); }
}

struct Response { int found; uint64_t move, key; int piece, victim, may_check, count; uint64_t cycles; };

static Response read_response(uint64_t start) {
    uint64_t r = top->search___05Fresponse___05Fpayload;
    Response out;
    out.found = field(r, GENRESPONSE_FOUND_OFFSET, GENRESPONSE_FOUND_WIDTH);
    out.move = field(r, GENRESPONSE_MOVE_OFFSET, GENRESPONSE_MOVE_WIDTH);
    out.key = field(r, GENRESPONSE_KEY_OFFSET, GENRESPONSE_KEY_WIDTH);
    out.piece = field(r, GENRESPONSE_PIECE_OFFSET, GENRESPONSE_PIECE_WIDTH);
    out.victim = field(r, GENRESPONSE_VICTIM_OFFSET, GENRESPONSE_VICTIM_WIDTH);
    out.may_check = field(r, GENRESPONSE_MAY_CHECK_OFFSET, GENRESPONSE_MAY_CHECK_WIDTH);
    out.count = field(r, GENRESPONSE_COUNT_OFFSET, GENRESPONSE_COUNT_WIDTH);
    out.cycles = cycles - start;
    return out;
}

static Response request(uint64_t bits) {
    uint64_t start = cycles;
    top->search___05Frequest___05Fpayload = bits;
    transfer(top->search___05Frequest___05Fvalid, top->search___05Frequest___05Fready);
    while (!top->search___05Fresponse___05Fvalid) { tick(); }
    return read_response(start);
}

// One cycle of the schedule of ``held``: a halfmove offered if any, the request if asked.
static bool held_cycle(const uint64_t *halfmove_bits, bool offer_request, uint64_t request_bits, uint64_t start,
                       Response &answer, bool &answered) {
    top->halfmove___05Fvalid = halfmove_bits != nullptr;
    if (halfmove_bits) top->halfmove___05Fpayload = *halfmove_bits;
    top->search___05Frequest___05Fvalid = offer_request;
    top->search___05Frequest___05Fpayload = request_bits;
    top->eval();
    bool taken = !offer_request || top->search___05Frequest___05Fready;
    tick();
    top->halfmove___05Fvalid = 0; top->search___05Frequest___05Fvalid = 0;
    top->eval();
    if (!answered && top->search___05Fresponse___05Fvalid) { answer = read_response(start); answered = true; }
    return taken;
}

static Response held(int gap, uint64_t bits, const std::vector<uint64_t> &before, const std::vector<uint64_t> &after) {
    Response answer{};
    bool answered = false;
    uint64_t start = 0;
    for (size_t i = 0; i + 1 < before.size(); i++) held_cycle(&before[i], false, 0, 0, answer, answered);
    if (gap == 1) held_cycle(&before.back(), false, 0, 0, answer, answered);
    start = cycles;
    bool taken = held_cycle(gap == 0 ? &before.back() : nullptr, true, bits, start, answer, answered);
    if (!taken) { std::fprintf(stderr, "error: held request refused\n"); std::exit(1); }
    top->side ^= 1;
    for (auto &h : after) held_cycle(&h, false, 0, start, answer, answered);
    while (!answered) held_cycle(nullptr, false, 0, start, answer, answered);
    return answer;
}

static uint64_t gen_request(int op, int ply, int mode) {
    return put(op, GENREQUEST_OP_OFFSET) | put(ply, GENREQUEST_PLY_OFFSET)
         | put(mode, GENREQUEST_MODE_OFFSET);
}

static void print_response(const Response &r) {
    std::printf("%d %llu %llu %d %d %d %d %llu\n", r.found, (unsigned long long)r.move,
                (unsigned long long)r.key, r.piece, r.victim, r.may_check, r.count, (unsigned long long)r.cycles);
}

// --- make/unmake: the halfmoves of a move, from the move word and the board -------------------
struct Half { int op, square, piece; };

// Piece codes through the generated Piece layout and PieceType enumeration (hdl/encoding.py).
static inline int piece_type(int code) { return (int)field(code, PIECE_TYPE_OFFSET, PIECE_TYPE_WIDTH); }
static inline int piece_colour(int code) { return (int)field(code, PIECE_COLOUR_OFFSET, PIECE_COLOUR_WIDTH); }
static constexpr int piece_code(int type, int colour) {
    return (type << PIECE_TYPE_OFFSET) | (colour << PIECE_COLOUR_OFFSET);
}
static const int MARKER_CODE = piece_code(PIECETYPE_MARKER, COLOUR_WHITE);

static std::vector<Half> make_halfmoves(const Response &r) {
    uint64_t mv = r.move;
    int from = field(mv, MOVEWORD_FROM_SQ_OFFSET, MOVEWORD_FROM_SQ_WIDTH);
    int to = field(mv, MOVEWORD_TO_SQ_OFFSET, MOVEWORD_TO_SQ_WIDTH);
    int promotion = field(mv, MOVEWORD_PROMOTION_OFFSET, MOVEWORD_PROMOTION_WIDTH);
    int ep = field(mv, MOVEWORD_FLAGS_EN_PASSANT_OFFSET, MOVEWORD_FLAGS_EN_PASSANT_WIDTH);
    int castle = field(mv, MOVEWORD_FLAGS_CASTLE_OFFSET, MOVEWORD_FLAGS_CASTLE_WIDTH);
    int dbl = field(mv, MOVEWORD_FLAGS_DOUBLE_PUSH_OFFSET, MOVEWORD_FLAGS_DOUBLE_PUSH_WIDTH);
    int colour = piece_colour(r.piece);
    uint64_t markers = plane(top->board, 4);
    std::vector<Half> out;
    // markers lost: the en-passant target (ranks 3 and 6), rights of a moved king or rook,
    // and of a captured rook
    uint64_t lost = markers & 0x0000FF0000FF0000ull;
    const int homes[4] = {0, 7, 56, 63};
    for (int h : homes) {
        bool side_king = piece_type(r.piece) == PIECETYPE_KING && (h >> 3) == (from >> 3)
                         && (from == 4 || from == 60);
        if (((markers >> h) & 1) && (from == h || to == h || side_king)) lost |= 1ull << h;
    }
    for (int s = 0; s < 64; s++) if ((lost >> s) & 1) out.push_back({0, s, MARKER_CODE});
    if (ep) out.push_back({0, to + (colour == COLOUR_BLACK ? 8 : -8), r.victim});
    else if (r.victim) out.push_back({0, to, r.victim});
    out.push_back({0, from, r.piece});
    int rook_from = -1, rook_to = -1;
    if (castle) {
        bool kingside = (to & 7) == 6;
        rook_from = (to & 56) | (kingside ? 7 : 0);
        rook_to = (to & 56) | (kingside ? 5 : 3);
        out.push_back({0, rook_from, piece_code(PIECETYPE_ROOK, colour)});
    }
    out.push_back({1, to, promotion ? piece_code(promotion, colour) : r.piece});
    if (castle) out.push_back({1, rook_to, piece_code(PIECETYPE_ROOK, colour)});
    if (dbl) out.push_back({1, (from + to) / 2, MARKER_CODE});
    return out;
}

static void apply_halfmoves(const std::vector<Half> &hs, bool undo) {
    if (!undo) { for (auto &h : hs) halfmove(h.op, h.square, h.piece); }
    else { for (auto it = hs.rbegin(); it != hs.rend(); ++it) halfmove(it->op ^ 1, it->square, it->piece); }
}

static uint64_t perft(int depth, int ply, int side) {
    if (depth == 0) return 1;
    uint64_t count = 0;
    int op = 0;  // FIRST
    for (;;) {
        Response r = request(gen_request(op, ply, 0));
        op = 1;  // NEXT
        if (!r.found) break;
        std::vector<Half> hs = make_halfmoves(r);
        apply_halfmoves(hs, false);
        set_side(side ^ 1);
        settle();  // before reading the king-attacked flag
        bool illegal = (top->search___05Fking_attacked >> side) & 1;
        if (!illegal) count += perft(depth - 1, ply + 1, side ^ 1);
        set_side(side);
        apply_halfmoves(hs, true);
    }
    return count;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    top = new Vmovegen;
    trace_open(top);
    top->clk = 0; top->rst = 0; top->side = 0; top->search___05Fconfig = 0;
    top->halfmove___05Fvalid = 0; top->search___05Frequest___05Fvalid = 0;
    reset();
    serve([](const std::string &cmd, std::istringstream &in) {
        if (cmd == "reset") { reset(); }
        else if (cmd == "hm") { uint64_t b;
            while (in >> b) halfmove(field(b, HALFMOVE_OP_OFFSET, HALFMOVE_OP_WIDTH),
                                     field(b, HALFMOVE_SQUARE_OFFSET, HALFMOVE_SQUARE_WIDTH),
                                     field(b, HALFMOVE_PIECE_OFFSET, HALFMOVE_PIECE_WIDTH)); }
        else if (cmd == "side") { int s; in >> s; set_side(s); }
        else if (cmd == "config") { int c; in >> c; top->search___05Fconfig = c; top->eval(); }
        else if (cmd == "req") { uint64_t b; in >> b; print_response(request(b)); std::fflush(stdout); }
        else if (cmd == "held") {
            int gap; uint64_t bits; in >> gap >> bits;
            std::vector<uint64_t> before, after;
            std::string word; bool second = false;
            while (in >> word) {
                if (word == "/") second = true;
                else (second ? after : before).push_back(std::stoull(word));
            }
            print_response(held(gap, bits, before, after)); std::fflush(stdout);
        }
        else if (cmd == "gen") {
            int ply, mode; in >> ply >> mode;
            uint64_t start = cycles; int n = 0; int op = 0;
            for (;;) {
                Response r = request(gen_request(op, ply, mode)); op = 1;
                if (!r.found) break;
                print_response(r); n++;
            }
            std::printf("end %d %llu\n", n, (unsigned long long)(cycles - start));
            std::fflush(stdout);
        }
        else if (cmd == "state") {
            settle();
            std::printf("%d %d %llu %llu", top->search___05Fin_check, top->search___05Fking_attacked,
                        (unsigned long long)wide64(top->attacks, 0), (unsigned long long)wide64(top->attacks, 1));
            for (int k = 0; k < 5; k++) std::printf(" %llu", (unsigned long long)plane(top->board, k));
            std::printf(" %d %d %d %d\n", top->search___05Fforced, top->search___05Fmoveless,
                        top->search___05Fcaptures_open, top->search___05Fchecks_open); std::fflush(stdout);
        }
        else if (cmd == "perft") {
            int depth; in >> depth; uint64_t start = cycles;
            uint64_t n = perft(depth, 0, top->side);
            std::printf("%llu %llu\n", (unsigned long long)n, (unsigned long long)(cycles - start));
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
