// The exact database of a CHUNKER domain, by retrograde analysis (host/chunker/database.py
// compiles and runs it; host/chunker/domain.py defines the rules, the index and the value byte,
// and passes them in as the definitions WHITE_FILES, BLACK_FILES, N_WHITE, N_BLACK, DEFENDER,
// DEFENDER_PASSES, DEFENDER_WAITS, DEFENDER_BARRED, DEFENDER_FROZEN, DEFENDER_REACH, VALUE_*; a
// compiled solver serves every game of that layout, each named by the options below).
//
//     retro [--floors C,C,...] [--joint SIDE REGION REFUGE] OUT [AREAS_OUT]
//
// writes one value byte per index of the configurations the floors allow (8,192 a configuration,
// in the order of their indices) to OUT and a summary line to stdout; with AREAS_OUT, also each
// state's king area (below) as one little-endian uint64 per index. --floors: each pawn's least
// code (below); --joint: the joint game's side (0 White, 1 Black) and its two bitboards (below).
//
// Pawn moves and captures cannot be taken back: every one raises the sum of the pawns' codes
// (a capture sets a code of 1..6 to "gone", counted as 7). So the pawn configurations are
// solved from the highest sum down, and each one's moves that leave it are already known when
// it is solved. Inside a configuration only the kings move (and, with DEFENDER_PASSES or
// DEFENDER_WAITS, the side without pawns may pass): a retrograde pass over its 8,192 (side, white king, black king)
// states, in order of distance (a bucket queue), finds each state's value from its moves out
// of the configuration and its moves inside it. The moves are generated here, apart from
// python-chess; database.verify checks the result against python-chess's moves.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

static const int white_files[N_WHITE + 1] = {WHITE_FILES};
static const int black_files[N_BLACK + 1] = {BLACK_FILES};
static const int n_pawns = N_WHITE + N_BLACK;
static const int codes = 7;
static const int states = 2 * 64 * 64;
// Each pawn's least code (--floors, in the pawns' order): 1 allows every code (the whole domain,
// the default); c > 1 only codes c..6 and gone; 0 only gone. A game from a position with these
// codes never leaves them (pawns only advance or go), so only those configurations are solved.
static int floors[n_pawns + 1];

typedef uint64_t bb;
static inline bb bit(int sq) { return bb(1) << sq; }
static inline int file_of(int sq) { return sq & 7; }
static inline int rank_of(int sq) { return sq >> 3; }
static inline int distance(int a, int b) {
    return std::max(std::abs(file_of(a) - file_of(b)), std::abs(rank_of(a) - rank_of(b)));
}

static bb king_moves[64];

static void init_kings() {
    for (int sq = 0; sq < 64; sq++) {
        king_moves[sq] = 0;
        for (int df = -1; df <= 1; df++)
            for (int dr = -1; dr <= 1; dr++) {
                int f = file_of(sq) + df, r = rank_of(sq) + dr;
                if ((df || dr) && f >= 0 && f < 8 && r >= 0 && r < 8) king_moves[sq] |= bit(r * 8 + f);
            }
    }
}

// A configuration: each pawn's code (0 gone, 1..6 its rank 2..7 from its side's view).
struct Config {
    int code[n_pawns + 1];
    int pawn_square[n_pawns + 1];     // -1 when gone
    bb pawns[2];                      // by colour: 0 White, 1 Black
    bb attacks[2];                    // squares the colour's pawns attack
};

static bool is_white(int k) { return k < N_WHITE; }
static int file_of_pawn(int k) { return is_white(k) ? white_files[k] : black_files[k - N_WHITE]; }

static int square_of(int k, int code) {
    int rank = is_white(k) ? code : 7 - code;
    return rank * 8 + file_of_pawn(k);
}

static Config decode(long config) {
    Config c = {};
    c.pawns[0] = c.pawns[1] = c.attacks[0] = c.attacks[1] = 0;
    for (int k = 0; k < n_pawns; k++) {
        c.code[k] = int(config % codes);
        config /= codes;
        c.pawn_square[k] = -1;
        if (!c.code[k]) continue;
        int sq = square_of(k, c.code[k]), colour = is_white(k) ? 0 : 1;
        c.pawn_square[k] = sq;
        c.pawns[colour] |= bit(sq);
        int ahead = colour == 0 ? sq + 8 : sq - 8;      // a pawn is never on its last rank
        if (file_of(sq) > 0) c.attacks[colour] |= bit(ahead - 1);
        if (file_of(sq) < 7) c.attacks[colour] |= bit(ahead + 1);
    }
    return c;
}

static long with_code(long config, int k, int code) {
    long place = 1;
    for (int i = 0; i < k; i++) place *= codes;
    long old = (config / place) % codes;
    return config + (code - old) * place;
}

static inline long state_index(int side, int wk, int bk) { return (long(side) * 64 + wk) * 64 + bk; }

// An outcome for the side to move: kind and plies.
enum Kind { NONE = 0, LOSS_ = 1, DRAW_ = 2, WIN_ = 3 };
struct Outcome {
    int kind, plies;
};
// Better for the side to move: a win sooner, then a draw, then a loss later.
static bool better(Outcome a, Outcome b) {
    if (a.kind != b.kind) return a.kind > b.kind;
    if (a.kind == WIN_) return a.plies < b.plies;
    if (a.kind == LOSS_) return a.plies > b.plies;
    return false;
}

static std::vector<uint8_t> values;      // the solved configurations' values, each at its slot
static std::vector<long> slot;           // per configuration: its place in values (-1: not solved)

static bool allowed(long config) {
    for (int k = 0; k < n_pawns; k++, config /= codes) {
        int code = int(config % codes);
        if (code && (!floors[k] || code < floors[k])) return false;
    }
    return true;
}

// The value byte of an index over the whole database (of a configuration the floors allow).
static inline uint8_t value_of(size_t index) { return values[size_t(slot[index / states]) * states + index % states]; }

static Outcome from_byte(uint8_t v) {
    if (v == VALUE_DRAW) return {DRAW_, 0};
    if (v >= VALUE_LOSS && v != VALUE_INVALID) return {LOSS_, v - VALUE_LOSS};
    if (v > 0 && v < VALUE_LOSS) return {WIN_, v};
    std::fprintf(stderr, "retro: a move reaches an invalid position\n");
    std::exit(2);
}

// A child's value (its side to move the opponent's) seen by the mover, one ply on.
static Outcome after_move(uint8_t v) {
    Outcome o = from_byte(v);
    if (o.kind == WIN_) return {LOSS_, o.plies + 1};
    if (o.kind == LOSS_) return {WIN_, o.plies + 1};
    return o;
}

static uint8_t to_byte(Outcome o) {
    if (o.plies > VALUE_MAX_PLIES + (o.kind == WIN_)) {
        std::fprintf(stderr, "retro: a distance of %d plies does not fit the value byte\n", o.plies);
        std::exit(2);
    }
    if (o.kind == WIN_) return uint8_t(o.plies);
    if (o.kind == LOSS_) return uint8_t(VALUE_LOSS + o.plies);
    return VALUE_DRAW;
}

struct Event {
    int state;
    Outcome value;
};

// The side the defender's rules apply to (DEFENDER: 0 White, 1 Black, -1 none): the side without
// pawns where only the other side has pawns, or a side with pawns that waits and is barred; the
// squares its king may not stand on (DEFENDER_BARRED, a bitboard); whether it may pass:
// DEFENDER_PASSES, whenever it is not in check and its king has a move; DEFENDER_WAITS, only when
// it is not in check and has no move at all; DEFENDER_FROZEN, always: its king never moves (in check it is
// mated), and it takes no promoted piece (every promotion is safe). With DEFENDER_FROZEN, an
// attacker to move with no pawn move and no king move off DEFENDER_REACH (a bitboard: where the
// defender's pawns elsewhere may deny its king a square) wins at once: on the board it may be
// stalemated. With DEFENDER_REACH and a defender with pawns that never passes (level 8's games),
// the other side to move, not in check, with no pawn move and no king move off DEFENDER_REACH is
// stalemated (a draw): on the board the defender's pawns elsewhere may take those squares too.
static const int defender = DEFENDER;
static const int passer = DEFENDER_PASSES || DEFENDER_WAITS || DEFENDER_FROZEN ? defender : -1;
static const bb barred = DEFENDER_BARRED;
static const bb reach = DEFENDER_REACH;
static const bool reach_stalemates = reach != 0 && !DEFENDER_FROZEN;
// The joint game (--joint: the side, 0 White or 1 Black, whose win it asks; -1 none), level 10's
// (host.chunker.schemas.joint): the board's game with two rules, both against that side. Its
// king keeps to the region (a bitboard); the other king may step into the refuge (a bitboard),
// but there the side wins only by a safe promotion at once: it has no other move (so a draw,
// or a loss in check). Every move of the side is the board's, and every move of the other
// side's is too: a win of the joint game is a win on the board, in as many plies or fewer.
static int joint = -1;
static bb region = 0, refuge = 0;

enum MoveKind {
    INSIDE,    // a king move or a pass that stays in the configuration: the other side moves next
    OUTSIDE,   // a capture or a pawn move into another configuration: the other side moves next
    AGAIN,     // an unsafe promotion and the capture it meets: the same side moves next, two plies on
    PROMOTES,  // a safe promotion: won
};

static bool valid_state(const Config &c, int side, int wk, int bk) {
    bb occupied = c.pawns[0] | c.pawns[1];
    return wk != bk && !(occupied & (bit(wk) | bit(bk))) && distance(wk, bk) > 1 &&
           !(side == 0 ? (c.attacks[0] & bit(bk)) : (c.attacks[1] & bit(wk))) &&
           !(defender >= 0 && (barred & bit(defender == 0 ? wk : bk))) &&
           !(joint >= 0 && !(region & bit(joint == 0 ? wk : bk))) &&
           !(joint >= 0 && side != joint && (refuge & bit(joint == 0 ? bk : wk)));
}

static bool in_check(const Config &c, int side, int wk, int bk) {
    return c.attacks[1 - side] & bit(side == 0 ? wk : bk);
}

// The square pawn ``k`` steps to when it is side ``us``'s, on the board and not blocked by a
// king; -1 otherwise.
static int pawn_step(const Config &c, int k, int us, int wk, int bk) {
    if (!c.code[k] || is_white(k) != (us == 0)) return -1;
    int front = c.pawn_square[k] + (us == 0 ? 8 : -8);
    return front == wk || front == bk ? -1 : front;
}

// Whether side ``us`` has a pawn that can step.
static bool has_pawn_move(const Config &c, int us, int wk, int bk) {
    for (int k = 0; k < n_pawns; k++)
        if (pawn_step(c, k, us, wk, bk) >= 0) return true;
    return false;
}

// Calls visit(kind, child's index over the whole database) for every move of a valid state.
template <class Visit>
static void for_each_move(long config, const Config &c, int side, int wk, int bk, Visit visit) {
    const size_t base = size_t(config) * states;
    int us = side, them = 1 - side;
    int king = us == 0 ? wk : bk, other = us == 0 ? bk : wk;
    bool checked = in_check(c, side, wk, bk);
    bb targets = king_moves[king] & ~c.pawns[us] & ~c.attacks[them] & ~king_moves[other];
    if (us == defender) targets &= DEFENDER_FROZEN ? 0 : ~barred;
    bool cornered = us == joint && (refuge & bit(other));      // only a safe promotion at once
    if (us == joint) targets &= cornered ? 0 : region;
    if (reach_stalemates && us != defender && !checked && !(targets & ~reach) && !has_pawn_move(c, us, wk, bk))
        return;                                 // no move: stalemated
    for (bb t = targets; t; t &= t - 1) {
        int to = __builtin_ctzll(t);
        int nwk = us == 0 ? to : wk, nbk = us == 0 ? bk : to;
        if (c.pawns[them] & bit(to)) {          // takes a pawn: another configuration
            int k = 0;
            while (c.pawn_square[k] != to) k++;
            visit(OUTSIDE, size_t(with_code(config, k, 0)) * states + state_index(them, nwk, nbk));
        } else {
            visit(INSIDE, base + state_index(them, nwk, nbk));
        }
    }
    if (us == passer && !checked && (DEFENDER_FROZEN || (!DEFENDER_WAITS && targets != 0)))
        visit(INSIDE, base + state_index(them, wk, bk));
    if (checked) return;
    bool pawn_moves = false;
    for (int k = 0; k < n_pawns; k++) {
        int front = pawn_step(c, k, us, wk, bk);
        if (front < 0) continue;
        pawn_moves = true;
        if (c.code[k] == 6) {                   // promotes
            bool taken = !DEFENDER_FROZEN && distance(front, other) <= 1 && distance(front, king) > 1 &&
                         !(c.attacks[us] & bit(front));
            if (!taken) {
                visit(PROMOTES, 0);
            } else if (!cornered) {             // the other king takes: our move again
                int nwk = us == 0 ? wk : front, nbk = us == 0 ? front : bk;
                visit(AGAIN, size_t(with_code(config, k, 0)) * states + state_index(us, nwk, nbk));
            }
            continue;
        }
        if (cornered) continue;
        visit(OUTSIDE, size_t(with_code(config, k, c.code[k] + 1)) * states + state_index(them, wk, bk));
        int beyond = 2 * front - c.pawn_square[k];
        if (c.code[k] == 1 && beyond != wk && beyond != bk)
            visit(OUTSIDE, size_t(with_code(config, k, 3)) * states + state_index(them, wk, bk));
    }
    if (DEFENDER_WAITS && us == passer && !targets && !pawn_moves)     // (not in check: returned above)
        visit(INSIDE, base + state_index(them, wk, bk));
    if (DEFENDER_FROZEN && us != defender && !pawn_moves && !(targets & ~reach)) visit(PROMOTES, 0);
}

static void solve(long config) {
    Config c = decode(config);
    const size_t base = size_t(config) * states;
    uint8_t *out = &values[size_t(slot[config]) * states];
    static Outcome ext[states];
    static int count[states];
    static int preds[states][9];
    static int n_preds[states];
    static bool done[states];
    static std::vector<Event> buckets[VALUE_MAX_PLIES + 3];
    for (auto &b : buckets) b.clear();
    for (int s = 0; s < states; s++) n_preds[s] = 0, count[s] = 0, done[s] = false;

    for (int side = 0; side < 2; side++)
        for (int wk = 0; wk < 64; wk++)
            for (int bk = 0; bk < 64; bk++) {
                int s = int(state_index(side, wk, bk));
                if (!valid_state(c, side, wk, bk)) {
                    out[s] = VALUE_INVALID;
                    done[s] = true;
                    continue;
                }
                Outcome best = {NONE, 0};
                for_each_move(config, c, side, wk, bk, [&](MoveKind kind, size_t child) {
                    Outcome o = {WIN_, 1};
                    if (kind == INSIDE) {
                        int inside = int(child - base);
                        preds[inside][n_preds[inside]++] = s;
                        count[s]++;
                        return;
                    }
                    if (kind == OUTSIDE) o = after_move(value_of(child));
                    if (kind == AGAIN) {
                        o = from_byte(value_of(child));
                        if (o.kind != DRAW_) o.plies += 2;
                    }
                    if (better(o, best)) best = o;
                });
                if (!count[s] && best.kind == NONE)
                    best = in_check(c, side, wk, bk) ? Outcome{LOSS_, 0} : Outcome{DRAW_, 0};
                ext[s] = best;
            }

    // Seed: states whose value is known without their king moves.
    for (int s = 0; s < states; s++) {
        if (done[s]) continue;
        Outcome o = ext[s];
        if (!count[s] || o.kind == WIN_) {
            if (o.kind == DRAW_) {
                out[s] = VALUE_DRAW;
                done[s] = true;
            } else {
                buckets[std::min(o.plies, VALUE_MAX_PLIES + 2)].push_back({s, o});
            }
        }
    }
    for (int d = 0; d <= VALUE_MAX_PLIES + 1; d++) {
        for (size_t i = 0; i < buckets[d].size(); i++) {
            Event e = buckets[d][i];
            if (done[e.state]) continue;
            done[e.state] = true;
            out[e.state] = to_byte(e.value);
            for (int j = 0; j < n_preds[e.state]; j++) {
                int p = preds[e.state][j];
                if (done[p]) continue;
                if (e.value.kind == LOSS_) {
                    buckets[d + 1].push_back({p, {WIN_, d + 1}});
                } else if (--count[p] == 0 && (ext[p].kind == NONE || ext[p].kind == LOSS_)) {
                    int plies = std::max(d + 1, ext[p].kind == LOSS_ ? ext[p].plies : 0);
                    buckets[std::min(plies, VALUE_MAX_PLIES + 2)].push_back({p, {LOSS_, plies}});
                }
            }
        }
    }
    if (!buckets[VALUE_MAX_PLIES + 2].empty()) {
        std::fprintf(stderr, "retro: a distance past %d plies does not fit the value byte\n", VALUE_MAX_PLIES);
        std::exit(2);
    }
    for (int s = 0; s < states; s++)
        if (!done[s]) out[s] = VALUE_DRAW;       // nobody can force a promotion: a draw
}

// The attacker's king area of each state it wins (a domain where one side alone has pawns): the
// squares its king stands on in one winning strategy, over every defence. The strategy takes, at
// each of its moves, a move that wins soonest, and among those one whose area is smallest; a
// defender's state unites its moves' areas. Computed from the nearest wins out, so every child's
// area is known first.
static std::vector<uint64_t> king_areas() {
    const int attacker = N_WHITE > 0 ? 0 : 1;
    std::vector<uint64_t> area(values.size(), 0);
    std::vector<std::vector<uint32_t>> by_plies(VALUE_MAX_PLIES + 2);
    for (size_t i = 0; i < values.size(); i++) {
        uint8_t v = values[i];
        if (v == VALUE_INVALID || v == VALUE_DRAW) continue;
        int side = int((i / (64 * 64)) % 2);
        bool wins = v < VALUE_LOSS;
        if (wins == (side == attacker)) by_plies[wins ? v : v - VALUE_LOSS].push_back(uint32_t(i));
    }
    for (int d = 0; d < int(by_plies.size()); d++)
        for (uint32_t i : by_plies[d]) {
            long config = long(i / states);
            int s = int(i % states), side = s / (64 * 64), wk = (s / 64) % 64, bk = s % 64;
            Config c = decode(config);
            uint64_t own = bit(attacker == 0 ? wk : bk);
            if (side != attacker) {              // every defence
                uint64_t all = own;
                for_each_move(config, c, side, wk, bk, [&](MoveKind, size_t child) { all |= area[child]; });
                area[i] = all;
                continue;
            }
            uint64_t chosen = ~uint64_t(0);
            for_each_move(config, c, side, wk, bk, [&](MoveKind kind, size_t child) {
                uint64_t a;
                if (kind == PROMOTES) {
                    if (d != 1) return;
                    a = 0;
                } else if (kind == AGAIN) {
                    if (values[child] != d - 2) return;
                    a = area[child];
                } else {
                    if (values[child] != VALUE_LOSS + d - 1) return;
                    a = area[child];
                }
                if (__builtin_popcountll(a) < __builtin_popcountll(chosen)) chosen = a;
            });
            area[i] = own | chosen;
        }
    return area;
}

static bool parse_options(int &argc, char **&argv) {
    for (int k = 0; k < n_pawns; k++) floors[k] = 1;
    while (argc > 1 && argv[1][0] == '-') {
        std::string option = argv[1];
        if (option == "--floors" && argc > 2) {
            char *text = argv[2];
            for (int k = 0; k < n_pawns; k++) {
                floors[k] = int(std::strtol(text, &text, 10));
                if (floors[k] < 0 || floors[k] >= codes || *text != (k + 1 < n_pawns ? ',' : '\0')) return false;
                text++;
            }
            argc -= 2, argv += 2;
        } else if (option == "--joint" && argc > 4) {
            joint = std::atoi(argv[2]);
            region = std::strtoull(argv[3], nullptr, 0);
            refuge = std::strtoull(argv[4], nullptr, 0);
            if ((joint != 0 && joint != 1) || !region || defender >= 0 || !N_WHITE || !N_BLACK) return false;
            argc -= 4, argv += 4;
        } else {
            return false;
        }
    }
    return argc == 2 || argc == 3;
}

int main(int argc, char **argv) {
    if (!parse_options(argc, argv)) {
        std::fprintf(stderr, "usage: retro [--floors C,C,...] [--joint SIDE REGION REFUGE] OUT [AREAS_OUT] "
                     "(--joint: side 0 or 1, a region, both sides with pawns, no defender)\n");
        return 1;
    }
    if (argc == 3 && N_WHITE > 0 && N_BLACK > 0) {
        std::fprintf(stderr, "retro: king areas need a domain where one side alone has pawns\n");
        return 1;
    }
    auto start = std::chrono::steady_clock::now();
    init_kings();
    long configs = 1;
    for (int k = 0; k < n_pawns; k++) configs *= codes;
    std::vector<long> order;
    std::vector<int> sum(configs);
    slot.assign(configs, -1);
    for (long config = 0; config < configs; config++) {
        if (!allowed(config)) continue;
        slot[config] = long(order.size());
        order.push_back(config);
        long rest = config;
        for (int k = 0; k < n_pawns; k++, rest /= codes) sum[config] += rest % codes ? int(rest % codes) : codes;
    }
    if (argc == 3 && long(order.size()) != configs) {
        std::fprintf(stderr, "retro: king areas need every configuration (no floors)\n");
        return 1;
    }
    values.assign(order.size() * states, VALUE_INVALID);
    std::stable_sort(order.begin(), order.end(), [&](long a, long b) { return sum[a] > sum[b]; });
    for (long config : order) solve(config);
    FILE *out = std::fopen(argv[1], "wb");
    if (!out || std::fwrite(values.data(), 1, values.size(), out) != values.size() || std::fclose(out)) {
        std::fprintf(stderr, "retro: cannot write %s\n", argv[1]);
        return 2;
    }
    if (argc == 3) {
        std::vector<uint64_t> area = king_areas();
        FILE *areas = std::fopen(argv[2], "wb");
        if (!areas || std::fwrite(area.data(), 8, area.size(), areas) != area.size() || std::fclose(areas)) {
            std::fprintf(stderr, "retro: cannot write %s\n", argv[2]);
            return 2;
        }
    }
    long counts[4] = {0, 0, 0, 0};
    int longest = 0;
    for (uint8_t v : values) {
        if (v == VALUE_INVALID) counts[0]++;
        else if (v == VALUE_DRAW) counts[1]++;
        else if (v < VALUE_LOSS) counts[2]++, longest = std::max(longest, int(v));
        else counts[3]++, longest = std::max(longest, v - VALUE_LOSS);
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("{\"indices\": %zu, \"invalid\": %ld, \"draws\": %ld, \"wins\": %ld, \"losses\": %ld, "
                "\"longest\": %d, \"seconds\": %.3f}\n",
                values.size(), counts[0], counts[1], counts[2], counts[3], longest, seconds);
    return 0;
}
