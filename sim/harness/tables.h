// The evaluator's table-download and checksum ports, shared by the harnesses of every top that
// has them (``write`` and ``checksum_request`` streams, the ``checksum`` pulse). Needs layouts.h
// with TableWrite and TableSelect.
#pragma once
#include "common.h"

static inline uint64_t field(uint64_t word, int offset, int width) {
    return (word >> offset) & ((1ull << width) - 1);
}
static inline uint64_t put(uint64_t value, int offset) { return value << offset; }

template <class Top> inline void table_write(Top *top, uint64_t &cycles, uint64_t unit, uint64_t table,
                                             uint64_t index, uint64_t data) {
    top->write___05Fpayload = put(index, TABLEWRITE_ADDRESS_INDEX_OFFSET)
                            | put(table, TABLEWRITE_ADDRESS_TABLE_OFFSET)
                            | put(unit, TABLEWRITE_ADDRESS_UNIT_OFFSET)
                            | put(data, TABLEWRITE_DATA_OFFSET);
    transfer(top, cycles, top->write___05Fvalid, top->write___05Fready);
}

// "W <unit> <table> <start> <v>...": writes to consecutive entries (no answer).
template <class Top> inline void table_writes(Top *top, uint64_t &cycles, std::istringstream &in) {
    uint64_t unit, table, index, data;
    in >> unit >> table >> index;
    while (in >> data) table_write(top, cycles, unit, table, index++, data);
}

// "crc <unit> <table>": the table's CRC-32 as read back, "<crc> <cycles>".
template <class Top> inline void table_checksum(Top *top, uint64_t &cycles, std::istringstream &in) {
    uint64_t unit, table; in >> unit >> table;
    uint64_t start = cycles;
    top->checksum_request___05Fpayload = put(unit, TABLESELECT_UNIT_OFFSET) | put(table, TABLESELECT_TABLE_OFFSET);
    transfer(top, cycles, top->checksum_request___05Fvalid, top->checksum_request___05Fready);
    while (!top->checksum___05Fvalid) tick(top, cycles);
    std::printf("%llu %llu\n", (unsigned long long)top->checksum___05Fpayload,
                (unsigned long long)(cycles - start));
    std::fflush(stdout);
}
