/* The compiled core of a few hot loops; hedera_history.speedups picks it, or the pure-Python code
 * when it is missing, and both give the same values byte for byte (tests run them against each
 * other).
 *
 * v6_item_lists: the items of a decompressed V6 record file, walked over the wire format in one
 * pass: each item's exact transaction and record bytes and its record's consensus time. It
 * answers only for the regular shape (each item holds its transaction and record once, non-empty,
 * the record a consensus time that fits in 64 bits of nanoseconds); for anything else it answers
 * None and the Python readers, which name every fault, take over.
 *
 * mutation_entries, mutation_runs: rows (store.model.Row) as the ``entries`` fields of a
 * MutateRowsRequest, exactly as store.mutation_wire writes them: one bytes object per row, or one
 * buffer per run of rows of one table with the totals the writer cuts its batches on. None when a
 * row or cell holds a value of another type than the model's (the Python encoder then decides
 * what happens).
 *
 * mutate_rows_answer: a MutateRowsResponse's entry count and failed entries, read without building
 * its message; None for anything but the regular shape (protobuf then decides).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define WIRE_VARINT 0
#define WIRE_FIXED64 1
#define WIRE_LEN 2
#define WIRE_FIXED32 5

/* ---- wire-format reading --------------------------------------------------------------------- */

/* Reads a varint at *pos (< end); 0 when it runs past end or past 10 bytes. Bits past 64 are
 * dropped, as protobuf parsers drop them. */
static int read_varint(const unsigned char **pos, const unsigned char *end, uint64_t *out) {
    uint64_t value = 0;
    const unsigned char *p = *pos;
    for (int shift = 0; shift < 70; shift += 7) {
        if (p >= end) return 0;
        unsigned char byte = *p++;
        value |= (uint64_t)(byte & 0x7F) << shift;
        if (byte < 0x80) {
            *pos = p;
            *out = value;
            return 1;
        }
    }
    return 0;
}

/* The next field at *pos: its number, wire type, and its value (a VARINT's in *number_value, a
 * LEN field's payload in *start, *stop); 0 when malformed, a group, or running past end. A tag is
 * malformed as protobuf (upb) has it: more than 5 bytes, even of an overlong encoding, or a value
 * past 32 bits (a field number past 2^29 - 1), or field number 0. */
typedef struct {
    uint64_t number, varint;
    unsigned wire_type;
    const unsigned char *start, *stop;
} Field;

static int next_field(const unsigned char **pos, const unsigned char *end, Field *f) {
    uint64_t tag, n;
    const unsigned char *tag_start = *pos;
    if (!read_varint(pos, end, &tag) || *pos - tag_start > 5 || tag > UINT32_MAX || (tag >> 3) == 0) return 0;
    f->number = tag >> 3;
    f->wire_type = (unsigned)(tag & 7);
    switch (f->wire_type) {
    case WIRE_VARINT:
        return read_varint(pos, end, &f->varint);
    case WIRE_FIXED64:
        if (end - *pos < 8) return 0;
        *pos += 8;
        return 1;
    case WIRE_FIXED32:
        if (end - *pos < 4) return 0;
        *pos += 4;
        return 1;
    case WIRE_LEN:
        if (!read_varint(pos, end, &n) || n > (uint64_t)(end - *pos)) return 0;
        f->start = *pos;
        *pos += n;
        f->stop = *pos;
        return 1;
    default:
        return 0;
    }
}

/* Merges one Timestamp message into *seconds and *nanos (later fields win, as in a parse; a
 * field of another wire type is an unknown field). */
static int merge_timestamp(const unsigned char *p, const unsigned char *end, int64_t *seconds, int32_t *nanos) {
    Field f;
    while (p < end) {
        if (!next_field(&p, end, &f)) return 0;
        if (f.wire_type != WIRE_VARINT) continue;
        if (f.number == 1) *seconds = (int64_t)f.varint;
        if (f.number == 2) *nanos = (int32_t)(uint32_t)f.varint;
    }
    return 1;
}

/* The consensus time (field 3) of a TransactionRecord; 0 when absent, malformed or too large. */
static int consensus_ns(const unsigned char *p, const unsigned char *end, long long *out) {
    int64_t seconds = 0;
    int32_t nanos = 0;
    int present = 0;
    Field f;
    while (p < end) {
        if (!next_field(&p, end, &f)) return 0;
        if (f.number == 3 && f.wire_type == WIRE_LEN) {
            present = 1;
            if (!merge_timestamp(f.start, f.stop, &seconds, &nanos)) return 0;
        }
    }
    /* |seconds| < 9e9 keeps seconds * 1e9 + nanos inside a signed 64-bit value. */
    if (!present || seconds > 9000000000LL || seconds < -9000000000LL) return 0;
    *out = (long long)seconds * 1000000000LL + nanos;
    return 1;
}

/* ---- v6_item_lists --------------------------------------------------------------------------- */

static int append_new(PyObject *list, PyObject *value) {
    if (value == NULL) return -1;
    int failed = PyList_Append(list, value);
    Py_DECREF(value);
    return failed;
}

static PyObject *v6_item_lists(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *transactions = PyList_New(0), *records = PyList_New(0), *times = PyList_New(0);
    PyObject *result = NULL;
    int regular = 1;
    if (transactions == NULL || records == NULL || times == NULL) goto done;
    if (view.len < 4) {
        regular = 0;
        goto answer;
    }
    const unsigned char *p = (const unsigned char *)view.buf + 4;
    const unsigned char *end = (const unsigned char *)view.buf + view.len;
    while (p < end) {
        Field f;
        if (!next_field(&p, end, &f)) {
            regular = 0;
            break;
        }
        if (f.number != 3 || f.wire_type != WIRE_LEN) continue;
        const unsigned char *item = f.start, *item_end = f.stop;
        const unsigned char *payload[3][2] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}}; /* [1] transaction, [2] record */
        while (item < item_end && regular) {
            if (!next_field(&item, item_end, &f)) {
                regular = 0;
            } else if (f.wire_type == WIRE_LEN && (f.number == 1 || f.number == 2)) {
                if (payload[f.number][0] != NULL) regular = 0; /* given twice: the Python reader names it */
                payload[f.number][0] = f.start;
                payload[f.number][1] = f.stop;
            }
        }
        const unsigned char *tx = payload[1][0], *tx_end = payload[1][1];
        const unsigned char *rec = payload[2][0], *rec_end = payload[2][1];
        long long ns;
        if (!regular || tx == tx_end || rec == rec_end || !consensus_ns(rec, rec_end, &ns)) {
            regular = 0;
            break;
        }
        if (append_new(transactions, PyBytes_FromStringAndSize((const char *)tx, tx_end - tx)) < 0 ||
            append_new(records, PyBytes_FromStringAndSize((const char *)rec, rec_end - rec)) < 0 ||
            append_new(times, PyLong_FromLongLong(ns)) < 0)
            goto done;
    }
answer:
    if (regular) {
        result = PyTuple_Pack(3, transactions, records, times);
    } else {
        result = Py_NewRef(Py_None);
    }
done:
    Py_XDECREF(transactions);
    Py_XDECREF(records);
    Py_XDECREF(times);
    PyBuffer_Release(&view);
    return result;
}

/* ---- record_items ---------------------------------------------------------------------------- */

/* The offset of a slot in instances of cls, from its member descriptor; -1 (with TypeError) for
 * anything but an object slot of cls itself. */
static Py_ssize_t slot_offset(PyTypeObject *cls, PyObject *descriptor) {
    if (!Py_IS_TYPE(descriptor, &PyMemberDescr_Type) || PyDescr_TYPE(descriptor) != cls ||
        ((PyMemberDescrObject *)descriptor)->d_member->type != T_OBJECT_EX) {
        PyErr_SetString(PyExc_TypeError, "record_items: expected the object slots of the class");
        return -1;
    }
    return ((PyMemberDescrObject *)descriptor)->d_member->offset;
}

/* Instances of a slots class whose three slots take one value of each column. They hold bytes
 * and ints only, which cannot take part in a reference cycle, so they are left out of the cyclic
 * garbage collector (as CPython leaves out tuples of such values): thousands of items per file
 * would otherwise each be traversed by every collection while they live. */
static PyObject *record_items(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !PyType_Check(args[0]) || !PyTuple_CheckExact(args[1]) || PyTuple_GET_SIZE(args[1]) != 3) {
        PyErr_SetString(PyExc_TypeError, "record_items(cls, (slot descriptors), column, column, column)");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)args[0];
    Py_ssize_t offsets[3];
    PyObject *columns[3];
    Py_ssize_t count = -1;
    for (int c = 0; c < 3; c++) {
        offsets[c] = slot_offset(cls, PyTuple_GET_ITEM(args[1], c));
        if (offsets[c] < 0) return NULL;
        columns[c] = args[2 + c];
        if (!PyList_CheckExact(columns[c]) || (count >= 0 && PyList_GET_SIZE(columns[c]) != count)) {
            PyErr_SetString(PyExc_TypeError, "record_items: expected three lists of one length");
            return NULL;
        }
        count = PyList_GET_SIZE(columns[c]);
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyBytes_CheckExact(PyList_GET_ITEM(columns[0], i)) || !PyBytes_CheckExact(PyList_GET_ITEM(columns[1], i)) ||
            !PyLong_CheckExact(PyList_GET_ITEM(columns[2], i))) {
            PyErr_SetString(PyExc_TypeError, "record_items: expected bytes, bytes and int");
            return NULL;
        }
    }
    PyObject *items = PyTuple_New(count);
    if (items == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = cls->tp_alloc(cls, 0);
        if (item == NULL) {
            Py_DECREF(items);
            return NULL;
        }
        for (int c = 0; c < 3; c++) {
            PyObject *value = PyList_GET_ITEM(columns[c], i);
            *(PyObject **)((char *)item + offsets[c]) = Py_NewRef(value);
        }
        if (PyObject_IS_GC(item)) PyObject_GC_UnTrack(item);
        PyTuple_SET_ITEM(items, i, item);
    }
    return items;
}

/* ---- mutation_entries ------------------------------------------------------------------------ */

static PyObject *str_table, *str_key, *str_cells, *str_family, *str_qualifier, *str_value, *str_timestamp_micros;

static size_t varint_size(uint64_t value) {
    size_t size = 1;
    while (value > 0x7F) {
        value >>= 7;
        size++;
    }
    return size;
}

static char *put_varint(char *out, uint64_t value) {
    while (value > 0x7F) {
        *out++ = (char)((value & 0x7F) | 0x80);
        value >>= 7;
    }
    *out++ = (char)value;
    return out;
}

/* A length-delimited field of `size` payload bytes: tag, length, payload. */
static size_t field_size(size_t size) { return 1 + varint_size(size) + size; }

typedef struct {
    const char *family, *qualifier, *value;
    Py_ssize_t family_size, qualifier_size, value_size;
    uint64_t timestamp;
    size_t set_cell_size, mutation_size;
} CellParts;

/* Reading the fields of rows and cells: straight from their slots when the object's type is the one
 * last seen (and unchanged since: its version tag), else through getattr. For store.model's frozen
 * slots dataclasses this skips the attribute look-up, which would cost more than the encoding. */
typedef struct {
    PyTypeObject *type; /* borrowed: compared, never dereferenced once stale */
    unsigned int version;
    int count;
    PyObject **names;
    Py_ssize_t offsets[4];
} SlotCache;

static PyObject **row_names[3] = {&str_key, &str_cells, &str_table};
static PyObject **cell_names[4] = {&str_family, &str_qualifier, &str_value, &str_timestamp_micros};

static int cache_valid(const SlotCache *cache, PyTypeObject *type) {
    return cache->type == type && (type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) && type->tp_version_tag == cache->version;
}

/* Fills the cache for type when each name is an object slot of it; otherwise leaves it empty. */
static void cache_fill(SlotCache *cache, PyTypeObject *type, PyObject ***names, int count) {
    cache->type = NULL;
    for (int i = 0; i < count; i++) {
        PyObject *descriptor = _PyType_Lookup(type, *names[i]); /* borrowed */
        if (descriptor == NULL || !Py_IS_TYPE(descriptor, &PyMemberDescr_Type) ||
            PyDescr_TYPE(descriptor) != type || ((PyMemberDescrObject *)descriptor)->d_member->type != T_OBJECT_EX)
            return;
        cache->offsets[i] = ((PyMemberDescrObject *)descriptor)->d_member->offset;
    }
    /* _PyType_Lookup assigned the version tag it checked against. */
    if (!(type->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG)) return;
    cache->version = type->tp_version_tag;
    cache->count = count;
    cache->type = type;
}

/* Field i of obj (a new reference), or NULL with the getattr error. */
static PyObject *read_field(SlotCache *cache, PyObject *obj, PyObject ***names, int count, int i) {
    PyTypeObject *type = Py_TYPE(obj);
    if (!cache_valid(cache, type)) cache_fill(cache, type, names, count);
    if (cache_valid(cache, type)) {
        PyObject *value = *(PyObject **)((char *)obj + cache->offsets[i]);
        if (value != NULL) return Py_NewRef(value);
    }
    return PyObject_GetAttr(obj, *names[i]);
}

static SlotCache row_cache, cell_cache;

/* A cell's parts, borrowed from its attributes (held in *owned until the row is written); 0 when
 * a value is not of the model's type (str, bytes, bytes, int) or an error was raised. */
static int cell_parts(PyObject *cell, CellParts *parts, PyObject **owned) {
    for (int i = 0; i < 4; i++) {
        owned[i] = read_field(&cell_cache, cell, cell_names, 4, i);
        if (owned[i] == NULL) return 0;
    }
    if (!PyUnicode_CheckExact(owned[0]) || !PyBytes_CheckExact(owned[1]) || !PyBytes_CheckExact(owned[2]) ||
        !PyLong_CheckExact(owned[3]))
        return 0;
    parts->family = PyUnicode_AsUTF8AndSize(owned[0], &parts->family_size);
    if (parts->family == NULL) return 0;
    parts->qualifier = PyBytes_AS_STRING(owned[1]);
    parts->qualifier_size = PyBytes_GET_SIZE(owned[1]);
    parts->value = PyBytes_AS_STRING(owned[2]);
    parts->value_size = PyBytes_GET_SIZE(owned[2]);
    /* Negative numbers as their 64-bit two's complement, as protobuf writes an int64. */
    int overflow = 0;
    long long timestamp = PyLong_AsLongLongAndOverflow(owned[3], &overflow);
    if (overflow || (timestamp == -1 && PyErr_Occurred())) return 0;
    parts->timestamp = (uint64_t)timestamp;
    size_t size = 0;
    if (parts->family_size) size += field_size((size_t)parts->family_size);
    if (parts->qualifier_size) size += field_size((size_t)parts->qualifier_size);
    if (parts->timestamp) size += 1 + varint_size(parts->timestamp);
    if (parts->value_size) size += field_size((size_t)parts->value_size);
    parts->set_cell_size = size;
    parts->mutation_size = field_size(size);
    return 1;
}

static char *put_field(char *out, char tag, const char *data, size_t size) {
    *out++ = tag;
    out = put_varint(out, size);
    memcpy(out, data, size);
    return out + size;
}

static char *put_cell(char *out, const CellParts *c) {
    *out++ = 0x12; /* Entry.mutations = 2 */
    out = put_varint(out, c->mutation_size);
    *out++ = 0x0a; /* Mutation.set_cell = 1 */
    out = put_varint(out, c->set_cell_size);
    if (c->family_size) out = put_field(out, 0x0a, c->family, (size_t)c->family_size);
    if (c->qualifier_size) out = put_field(out, 0x12, c->qualifier, (size_t)c->qualifier_size);
    if (c->timestamp) {
        *out++ = 0x18; /* SetCell.timestamp_micros = 3 */
        out = put_varint(out, c->timestamp);
    }
    if (c->value_size) out = put_field(out, 0x22, c->value, (size_t)c->value_size);
    return out;
}

/* A row being encoded: its key and cells, each cell's parts and the attributes those borrow from
 * (owned until release_row). The arrays are kept from one row to the next. */
typedef struct {
    PyObject *key, *cells;
    CellParts *parts;
    PyObject **owned; /* four per cell */
    Py_ssize_t capacity, count, taken;
    size_t size; /* of the Entry message: its key field and its mutations */
} RowParts;

static void release_row(RowParts *r) {
    for (Py_ssize_t i = 0; i < 4 * r->taken; i++) Py_CLEAR(r->owned[i]);
    r->taken = 0;
    Py_CLEAR(r->key);
    Py_CLEAR(r->cells);
}

static void free_row_parts(RowParts *r) {
    release_row(r);
    PyMem_Free(r->parts);
    PyMem_Free(r->owned);
}

/* Room for count cells in r's arrays (the new attribute slots empty, as release_row leaves them). */
static int reserve_cells(RowParts *r, Py_ssize_t count) {
    if (count <= r->capacity) return 0;
    CellParts *parts = PyMem_Realloc(r->parts, sizeof(CellParts) * (size_t)count);
    if (parts == NULL) goto failed;
    r->parts = parts;
    PyObject **owned = PyMem_Realloc(r->owned, sizeof(PyObject *) * 4 * (size_t)count);
    if (owned == NULL) goto failed;
    memset(owned + 4 * r->capacity, 0, sizeof(PyObject *) * 4 * (size_t)(count - r->capacity));
    r->owned = owned;
    r->capacity = count;
    return 0;
failed:
    PyErr_NoMemory();
    return -1;
}

/* Reads row into r: 1 when read, 0 when a value is of another type than the model's, -1 on error.
 * Whatever it answers, release_row(r) comes next. */
static int read_row(RowParts *r, PyObject *row) {
    r->key = read_field(&row_cache, row, row_names, 3, 0);
    if (r->key == NULL) return -1;
    r->cells = read_field(&row_cache, row, row_names, 3, 1);
    if (r->cells == NULL) return -1;
    if (!PyBytes_CheckExact(r->key) || !PyTuple_CheckExact(r->cells)) return 0;
    Py_ssize_t count = PyTuple_GET_SIZE(r->cells);
    if (reserve_cells(r, count) < 0) return -1;
    Py_ssize_t key_size = PyBytes_GET_SIZE(r->key);
    size_t size = key_size ? field_size((size_t)key_size) : 0;
    while (r->taken < count) {
        Py_ssize_t i = r->taken++; /* its attributes are released even when they are not all read */
        if (!cell_parts(PyTuple_GET_ITEM(r->cells, i), &r->parts[i], &r->owned[4 * i])) return PyErr_Occurred() ? -1 : 0;
        size += field_size(r->parts[i].mutation_size);
    }
    r->count = count;
    r->size = size;
    return 1;
}

/* The bytes of r's entries field (field_size(r->size) of them) at out; where they end. */
static char *put_entry(char *out, const RowParts *r) {
    *out++ = 0x12; /* MutateRowsRequest.entries = 2 */
    out = put_varint(out, r->size);
    Py_ssize_t key_size = PyBytes_GET_SIZE(r->key);
    if (key_size) out = put_field(out, 0x0a, PyBytes_AS_STRING(r->key), (size_t)key_size);
    for (Py_ssize_t i = 0; i < r->count; i++) out = put_cell(out, &r->parts[i]);
    return out;
}

/* A slot of obj when its type is the cache's, else NULL; reads nothing but obj itself. */
static PyObject *cached_slot(const SlotCache *cache, PyObject *obj, int i) {
    return cache_valid(cache, Py_TYPE(obj)) ? *(PyObject **)((char *)obj + cache->offsets[i]) : NULL;
}

#define PREFETCH(p)                                                                                        \
    do {                                                                                                   \
        if ((p) != NULL) __builtin_prefetch(p);                                                            \
    } while (0)

/* The rows' objects are spread over memory, and each row leads to the next object through a
 * pointer: without help the encoder waits on one cache miss after another. Rows further ahead are
 * fetched a step at a time: the row, then its key and cells, then its first cell, then that cell's
 * qualifier and value, each step once the previous one has had time to arrive. Only fetches:
 * nothing read here decides anything. */
static void prefetch_rows(PyObject **rows, Py_ssize_t i, Py_ssize_t count) {
    enum { STEP = 3 };
    if (i + 4 * STEP < count) PREFETCH(rows[i + 4 * STEP]);
    if (i + 3 * STEP < count) {
        PyObject *row = rows[i + 3 * STEP];
        PREFETCH(cached_slot(&row_cache, row, 0));
        PREFETCH(cached_slot(&row_cache, row, 1));
    }
    if (i + 2 * STEP < count) {
        PyObject *cells = cached_slot(&row_cache, rows[i + 2 * STEP], 1);
        if (cells != NULL && PyTuple_CheckExact(cells) && PyTuple_GET_SIZE(cells) > 0) PREFETCH(PyTuple_GET_ITEM(cells, 0));
    }
    if (i + STEP < count) {
        PyObject *cells = cached_slot(&row_cache, rows[i + STEP], 1);
        if (cells != NULL && PyTuple_CheckExact(cells) && PyTuple_GET_SIZE(cells) > 0) {
            PyObject *cell = PyTuple_GET_ITEM(cells, 0);
            PREFETCH(cached_slot(&cell_cache, cell, 1));
            PREFETCH(cached_slot(&cell_cache, cell, 2));
        }
    }
}

static PyObject *mutation_entries(PyObject *module, PyObject *rows) {
    PyObject *sequence = PySequence_Fast(rows, "rows must be a sequence");
    if (sequence == NULL) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    PyObject *out = PyList_New(count), *result = NULL;
    RowParts r = {0};
    if (out == NULL) goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        prefetch_rows(items, i, count);
        int read = read_row(&r, items[i]);
        if (read <= 0) {
            if (read == 0) result = Py_NewRef(Py_None);
            goto done;
        }
        PyObject *entry = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)field_size(r.size));
        if (entry == NULL) goto done;
        put_entry(PyBytes_AS_STRING(entry), &r);
        PyList_SET_ITEM(out, i, entry);
        release_row(&r);
    }
    result = Py_NewRef(out);
done:
    free_row_parts(&r);
    Py_XDECREF(out);
    Py_DECREF(sequence);
    return result;
}

/* ---- mutation_runs --------------------------------------------------------------------------- */

/* A run of rows of one table as it is encoded: its entries fields written back to back. */
typedef struct {
    PyObject *table;
    Py_ssize_t start; /* its first row */
    PyObject *body;   /* a bytes object being written, larger than used until the run closes */
    Py_ssize_t used;
} Run;

static PyObject *int64_bytes(const int64_t *values, Py_ssize_t count) {
    return PyBytes_FromStringAndSize((const char *)values, count * (Py_ssize_t)sizeof(int64_t));
}

/* Room for more bytes in run's body, which at least doubles when it grows. */
static int reserve_body(Run *run, size_t more) {
    Py_ssize_t capacity = PyBytes_GET_SIZE(run->body);
    if ((size_t)(capacity - run->used) >= more) return 0;
    size_t wanted = (size_t)capacity * 2;
    while (wanted - (size_t)run->used < more) wanted *= 2;
    if (wanted > PY_SSIZE_T_MAX) {
        PyErr_NoMemory();
        return -1;
    }
    return _PyBytes_Resize(&run->body, (Py_ssize_t)wanted);
}

/* Appends (table, stop, body, ends, cells) of the run [run->start, stop) to runs. */
static int close_body_run(PyObject *runs, Run *run, Py_ssize_t stop, const int64_t *ends, const int64_t *cells) {
    if (_PyBytes_Resize(&run->body, run->used) < 0) return -1;
    Py_ssize_t count = stop - run->start;
    PyObject *end = PyLong_FromSsize_t(stop);
    PyObject *ends_bytes = int64_bytes(ends + run->start, count);
    PyObject *cells_bytes = int64_bytes(cells + run->start, count);
    PyObject *tuple = NULL;
    if (end != NULL && ends_bytes != NULL && cells_bytes != NULL)
        tuple = PyTuple_Pack(5, run->table, end, run->body, ends_bytes, cells_bytes);
    Py_XDECREF(end);
    Py_XDECREF(ends_bytes);
    Py_XDECREF(cells_bytes);
    Py_CLEAR(run->table);
    Py_CLEAR(run->body);
    return append_new(runs, tuple);
}

enum { FIRST_BODY_SIZE = 1 << 16 };

/* Rows as runs of one table, each encoded in one pass into one buffer: (table, stop (the index
 * after its last row), its rows' entries fields back to back, where each entry ends in them and
 * the running count of cells, both as native int64 arrays, counted from the run's start); None
 * when a value is of another type than the model's, as for mutation_entries. */
static PyObject *mutation_runs(PyObject *module, PyObject *rows) {
    PyObject *sequence = PySequence_Fast(rows, "rows must be a sequence");
    if (sequence == NULL) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    PyObject *runs = PyList_New(0), *result = NULL;
    int64_t *ends = PyMem_Malloc(sizeof(int64_t) * (size_t)(count ? count : 1));
    int64_t *cells = PyMem_Malloc(sizeof(int64_t) * (size_t)(count ? count : 1));
    RowParts r = {0};
    Run run = {NULL, 0, NULL, 0};
    int64_t cell_total = 0;
    if (runs == NULL || ends == NULL || cells == NULL) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        prefetch_rows(items, i, count);
        PyObject *row = items[i];
        PyObject *table = read_field(&row_cache, row, row_names, 3, 2);
        if (table == NULL) goto done;
        int same = run.table == NULL ? 0 : (table == run.table ? 1 : PyObject_RichCompareBool(table, run.table, Py_EQ));
        if (same != 0) Py_DECREF(table);
        if (same < 0) goto done;
        if (same == 0) {
            if (run.table != NULL && close_body_run(runs, &run, i, ends, cells) < 0) {
                Py_DECREF(table);
                goto done;
            }
            run.table = table;
            run.start = i;
            run.used = 0;
            cell_total = 0;
            run.body = PyBytes_FromStringAndSize(NULL, FIRST_BODY_SIZE);
            if (run.body == NULL) goto done;
        }
        int read = read_row(&r, row);
        if (read <= 0) {
            if (read == 0) result = Py_NewRef(Py_None);
            goto done;
        }
        size_t size = field_size(r.size);
        if (reserve_body(&run, size) < 0) goto done;
        put_entry(PyBytes_AS_STRING(run.body) + run.used, &r);
        run.used += (Py_ssize_t)size;
        cell_total += r.count;
        ends[i] = run.used;
        cells[i] = cell_total;
        release_row(&r);
    }
    if (run.table != NULL && close_body_run(runs, &run, count, ends, cells) < 0) goto done;
    result = Py_NewRef(runs);
done:
    free_row_parts(&r);
    Py_XDECREF(run.table);
    Py_XDECREF(run.body);
    PyMem_Free(ends);
    PyMem_Free(cells);
    Py_XDECREF(runs);
    Py_DECREF(sequence);
    return result;
}

/* ---- mutate_rows_answer ---------------------------------------------------------------------- */

/* One MutateRowsResponse read without building its message: the number of its entries and the
 * (index, code, message) of each whose status is not OK, in order. None for anything but the
 * regular shape (malformed, a known field of another wire type, a status message that is not
 * UTF-8, a status with details or an answer with rate_limit_info: messages whose inside protobuf
 * would check), where the protobuf parser decides. Fields are merged as a parse merges them: the
 * last index, code and message of an entry win; unknown fields are skipped. */
/* next_field, refusing also the field numbers protobuf refuses (over 2^29 - 1). */
static int answer_field(const unsigned char **pos, const unsigned char *end, Field *f) {
    return next_field(pos, end, f) && f->number <= 536870911u;
}

static PyObject *mutate_rows_answer(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    PyObject *failures = PyList_New(0), *result = NULL;
    Py_ssize_t count = 0;
    int regular = 1;
    if (failures == NULL) goto done;
    const unsigned char *p = (const unsigned char *)view.buf, *end = p + view.len;
    while (p < end && regular) {
        Field f, g, h;
        if (!answer_field(&p, end, &f)) {
            regular = 0;
            break;
        }
        if (f.number == 3) { /* rate_limit_info: a message protobuf would check */
            regular = 0;
            break;
        }
        if (f.number != 1) continue; /* MutateRowsResponse.entries = 1 */
        if (f.wire_type != WIRE_LEN) {
            regular = 0;
            break;
        }
        count++;
        int64_t index = 0;
        int32_t code = 0;
        const unsigned char *message = NULL, *message_end = NULL;
        const unsigned char *e = f.start;
        while (e < f.stop && regular) {
            if (!answer_field(&e, f.stop, &g)) {
                regular = 0;
            } else if (g.number == 1) { /* Entry.index */
                if (g.wire_type == WIRE_VARINT) index = (int64_t)g.varint;
                else regular = 0;
            } else if (g.number == 2) { /* Entry.status */
                if (g.wire_type != WIRE_LEN) {
                    regular = 0;
                    break;
                }
                const unsigned char *s = g.start;
                while (s < g.stop && regular) {
                    if (!answer_field(&s, g.stop, &h)) {
                        regular = 0;
                    } else if (h.number == 1) { /* Status.code */
                        if (h.wire_type == WIRE_VARINT) code = (int32_t)(uint32_t)h.varint;
                        else regular = 0;
                    } else if (h.number == 2) { /* Status.message */
                        if (h.wire_type == WIRE_LEN) {
                            message = h.start;
                            message_end = h.stop;
                        } else {
                            regular = 0;
                        }
                    } else if (h.number == 3) { /* details: messages protobuf would check */
                        regular = 0;
                    }
                }
            }
        }
        if (!regular) break;
        if (code == 0 && message == message_end) continue;
        PyObject *text = PyUnicode_DecodeUTF8((const char *)message, message_end - message, NULL);
        if (text == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) goto done;
            PyErr_Clear();
            regular = 0;
            break;
        }
        if (code == 0) {
            Py_DECREF(text);
            continue;
        }
        if (append_new(failures, Py_BuildValue("(LiN)", (long long)index, (int)code, text)) < 0) goto done;
    }
    result = regular ? Py_BuildValue("(nO)", count, failures) : Py_NewRef(Py_None);
done:
    Py_XDECREF(failures);
    PyBuffer_Release(&view);
    return result;
}

/* ---- table_rows ------------------------------------------------------------------------------ */

/* A new instance of a slots class with its object slots (offsets) set to values; left out of the
 * cyclic garbage collector: callers give it only values that cannot take part in a cycle. */
static PyObject *new_untracked(PyTypeObject *cls, const Py_ssize_t *offsets, PyObject *const *values, int count) {
    PyObject *obj = cls->tp_alloc(cls, 0);
    if (obj == NULL) return NULL;
    for (int i = 0; i < count; i++) *(PyObject **)((char *)obj + offsets[i]) = Py_NewRef(values[i]);
    if (PyObject_IS_GC(obj)) PyObject_GC_UnTrack(obj);
    return obj;
}

static int slot_offsets(PyObject *cls, PyObject *slots, Py_ssize_t *offsets, Py_ssize_t count) {
    if (!PyType_Check(cls) || !PyTuple_CheckExact(slots) || PyTuple_GET_SIZE(slots) != count) {
        PyErr_SetString(PyExc_TypeError, "table_rows: expected a class and a tuple of its slot descriptors");
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        offsets[i] = slot_offset((PyTypeObject *)cls, PyTuple_GET_ITEM(slots, i));
        if (offsets[i] < 0) return -1;
    }
    return 0;
}

/* A tuple of the one cell of values (family, qualifier, value, timestamp), left out of the collector. */
static PyObject *one_cell(PyTypeObject *cell_cls, const Py_ssize_t *offsets, PyObject *const *values) {
    PyObject *tuple = PyTuple_New(1);
    if (tuple == NULL) return NULL;
    PyObject *cell = new_untracked(cell_cls, offsets, values, 4);
    if (cell == NULL) {
        Py_DECREF(tuple);
        return NULL;
    }
    PyTuple_SET_ITEM(tuple, 0, cell);
    PyObject_GC_UnTrack(tuple);
    return tuple;
}

/* The cells of one row as a tuple: from a dict of (family, qualifier) -> value in that order, or
 * the one cell (family, qualifier) of single with the value given. */
static PyObject *row_cells(PyTypeObject *cell_cls, const Py_ssize_t *offsets, PyObject *cells, PyObject *single,
                           PyObject *stamp) {
    PyObject *values[4];
    values[3] = stamp;
    if (single != Py_None) {
        if (!PyBytes_CheckExact(cells)) goto wrong;
        values[0] = PyTuple_GET_ITEM(single, 0);
        values[1] = PyTuple_GET_ITEM(single, 1);
        values[2] = cells;
        return one_cell(cell_cls, offsets, values);
    }
    if (!PyDict_CheckExact(cells)) goto wrong;
    if (PyDict_GET_SIZE(cells) == 1) { /* most rows: one cell, read without a list of the items */
        Py_ssize_t position = 0;
        PyObject *name;
        PyDict_Next(cells, &position, &name, &values[2]);
        if (!PyTuple_CheckExact(name) || PyTuple_GET_SIZE(name) != 2 || !PyUnicode_CheckExact(PyTuple_GET_ITEM(name, 0)) ||
            !PyBytes_CheckExact(PyTuple_GET_ITEM(name, 1)) || !PyBytes_CheckExact(values[2]))
            goto wrong;
        values[0] = PyTuple_GET_ITEM(name, 0);
        values[1] = PyTuple_GET_ITEM(name, 1);
        return one_cell(cell_cls, offsets, values);
    }
    PyObject *items = PyDict_Items(cells);
    if (items == NULL) return NULL;
    if (PyList_GET_SIZE(items) > 1 && PyList_Sort(items) < 0) {
        Py_DECREF(items);
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(items);
    PyObject *tuple = PyTuple_New(count);
    if (tuple == NULL) {
        Py_DECREF(items);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *pair = PyList_GET_ITEM(items, i); /* ((family, qualifier), value) */
        PyObject *name = PyTuple_GET_ITEM(pair, 0);
        values[2] = PyTuple_GET_ITEM(pair, 1);
        if (!PyTuple_CheckExact(name) || PyTuple_GET_SIZE(name) != 2 || !PyUnicode_CheckExact(PyTuple_GET_ITEM(name, 0)) ||
            !PyBytes_CheckExact(PyTuple_GET_ITEM(name, 1)) || !PyBytes_CheckExact(values[2])) {
            Py_DECREF(items);
            Py_DECREF(tuple);
            goto wrong;
        }
        values[0] = PyTuple_GET_ITEM(name, 0);
        values[1] = PyTuple_GET_ITEM(name, 1);
        PyObject *cell = new_untracked(cell_cls, offsets, values, 4);
        if (cell == NULL) {
            Py_DECREF(items);
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, cell);
    }
    Py_DECREF(items);
    PyObject_GC_UnTrack(tuple);
    return tuple;
wrong:
    PyErr_SetString(PyExc_TypeError, "table_rows: expected cells {(str, bytes): bytes} (or bytes with single)");
    return NULL;
}

/* Appends to out the rows of one table in key order, each with its cells in (family, qualifier)
 * order and the timestamp stamp, as instances of classes = (Row, its table, key and cells slot
 * descriptors, Cell, its family, qualifier, value and timestamp slot descriptors): rows maps key -> {(family, qualifier): value}, or key -> value
 * with single = (family, qualifier). Rows, their cell tuples and cells hold str, bytes and ints
 * only, so all are left out of the cyclic garbage collector, as record_items leaves its items. */
static PyObject *table_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 6 || !PyTuple_CheckExact(args[0]) || PyTuple_GET_SIZE(args[0]) != 4) {
        PyErr_SetString(PyExc_TypeError, "table_rows((Row, row slots, Cell, cell slots), table, rows, stamp, single, out)");
        return NULL;
    }
    PyObject *row_cls = PyTuple_GET_ITEM(args[0], 0), *cell_cls = PyTuple_GET_ITEM(args[0], 2);
    Py_ssize_t row_offsets[3], cell_offsets[4];
    if (slot_offsets(row_cls, PyTuple_GET_ITEM(args[0], 1), row_offsets, 3) < 0 ||
        slot_offsets(cell_cls, PyTuple_GET_ITEM(args[0], 3), cell_offsets, 4) < 0)
        return NULL;
    PyObject *table = args[1], *rows = args[2], *stamp = args[3], *single = args[4], *out = args[5];
    if (!PyUnicode_CheckExact(table) || !PyDict_CheckExact(rows) || !PyLong_CheckExact(stamp) || !PyList_CheckExact(out) ||
        (single != Py_None && (!PyTuple_CheckExact(single) || PyTuple_GET_SIZE(single) != 2 ||
                               !PyUnicode_CheckExact(PyTuple_GET_ITEM(single, 0)) ||
                               !PyBytes_CheckExact(PyTuple_GET_ITEM(single, 1))))) {
        PyErr_SetString(PyExc_TypeError, "table_rows: expected str, dict, int, (str, bytes) or None, list");
        return NULL;
    }
    PyObject *keys = PyDict_Keys(rows);
    if (keys == NULL) return NULL;
    if (PyList_Sort(keys) < 0) goto fail;
    Py_ssize_t count = PyList_GET_SIZE(keys);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *key = PyList_GET_ITEM(keys, i);
        if (!PyBytes_CheckExact(key)) {
            PyErr_SetString(PyExc_TypeError, "table_rows: expected bytes row keys");
            goto fail;
        }
        PyObject *cells = PyDict_GetItemWithError(rows, key); /* borrowed */
        if (cells == NULL) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "table_rows: rows changed while read");
            goto fail;
        }
        PyObject *tuple = row_cells((PyTypeObject *)cell_cls, cell_offsets, cells, single, stamp);
        if (tuple == NULL) goto fail;
        PyObject *values[3] = {table, key, tuple};
        PyObject *row = new_untracked((PyTypeObject *)row_cls, row_offsets, values, 3);
        Py_DECREF(tuple);
        if (row == NULL || append_new(out, row) < 0) goto fail;
    }
    Py_DECREF(keys);
    Py_RETURN_NONE;
fail:
    Py_DECREF(keys);
    return NULL;
}

/* ---- record_entities ------------------------------------------------------------------------- */

/* Merges an AccountID or ContractID message into ids (shard = 1, realm = 2, num = 3, later values
 * winning as in a parse; field 4, the alias or EVM address of the oneof, leaves it without a
 * number); 0 when malformed. */
static int merge_entity_id(const unsigned char *p, const unsigned char *end, int64_t *ids) {
    Field f;
    while (p < end) {
        if (!next_field(&p, end, &f)) return 0;
        if (f.number == 4 && f.wire_type == WIRE_LEN)
            ids[2] = 0;
        else if (f.wire_type == WIRE_VARINT && f.number >= 1 && f.number <= 3)
            ids[f.number - 1] = (int64_t)f.varint;
    }
    return 1;
}

/* Merges the id in field `field` of each occurrence of a message into ids; 0 when malformed. */
static int merge_inner_id(const unsigned char *p, const unsigned char *end, uint64_t field, int64_t *ids) {
    Field f;
    while (p < end) {
        if (!next_field(&p, end, &f)) return 0;
        if (f.number == field && f.wire_type == WIRE_LEN && !merge_entity_id(f.start, f.stop, ids)) return 0;
    }
    return 1;
}

/* (shard, realm, num) triples, held inline up to a dozen, on the heap past that. */
typedef struct {
    int64_t (*ids)[3];
    Py_ssize_t count, capacity;
    int64_t inline_ids[12][3];
} EntityList;

static void entity_list_init(EntityList *list) {
    list->ids = list->inline_ids;
    list->count = 0;
    list->capacity = 12;
}

static void entity_list_free(EntityList *list) {
    if (list->ids != list->inline_ids) PyMem_Free(list->ids);
    entity_list_init(list);
}

/* Appends ids when given by a positive number; -1 (MemoryError) on error, 0 otherwise. */
static int append_positive(EntityList *out, const int64_t *ids) {
    if (ids[2] <= 0) return 0;
    if (out->count == out->capacity) {
        int64_t(*grown)[3] = PyMem_Malloc(sizeof(int64_t[3]) * (size_t)out->capacity * 2);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(grown, out->ids, sizeof(int64_t[3]) * (size_t)out->count);
        if (out->ids != out->inline_ids) PyMem_Free(out->ids);
        out->ids = grown;
        out->capacity *= 2;
    }
    memcpy(out->ids[out->count++], ids, sizeof(int64_t[3]));
    return 0;
}

/* Appends each triple of from to out; -1 on error. */
static int append_all(EntityList *out, const EntityList *from) {
    for (Py_ssize_t i = 0; i < from->count; i++)
        if (append_positive(out, from->ids[i]) < 0) return -1;
    return 0;
}

/* Appends the id of field `field` of a message (its occurrences merged) when given by a positive
 * number; -1 on error, 0 when malformed, 1 otherwise. */
static int append_inner_id(EntityList *out, const unsigned char *p, const unsigned char *end, uint64_t field) {
    int64_t ids[3] = {0, 0, 0};
    if (!merge_inner_id(p, end, field, ids)) return 0;
    return append_positive(out, ids) < 0 ? -1 : 1;
}

/* Appends the ids of each element of repeated field `field` of a message (each element its own
 * message; within it, the id in field `inner`, or the element itself when inner is 0). */
static int append_element_ids(EntityList *out, const unsigned char *p, const unsigned char *end, uint64_t field,
                              uint64_t inner) {
    Field f;
    while (p < end) {
        if (!next_field(&p, end, &f)) return 0;
        if (f.number != field || f.wire_type != WIRE_LEN) continue;
        int done;
        if (inner == 0) {
            int64_t ids[3] = {0, 0, 0};
            if (!merge_entity_id(f.start, f.stop, ids)) return 0;
            done = append_positive(out, ids) < 0 ? -1 : 1;
        } else {
            done = append_inner_id(out, f.start, f.stop, inner);
        }
        if (done <= 0) return done;
    }
    return 1;
}

/* The contract result (contractCallResult = 7 or contractCreateResult = 8, one oneof: an
 * occurrence of the other member starts it over, one of the same merges): its contract (1) and
 * sender (13) merged, its created contracts (7) each. */
typedef struct {
    uint64_t member;
    int64_t contract[3], sender[3];
    EntityList created; /* each created contract given by a positive number */
} ContractResult;

static int merge_contract_result(ContractResult *result, uint64_t member, const unsigned char *p,
                                 const unsigned char *end) {
    if (member != result->member) {
        result->member = member;
        memset(result->contract, 0, sizeof result->contract);
        memset(result->sender, 0, sizeof result->sender);
        result->created.count = 0;
    }
    if (!merge_inner_id(p, end, 1, result->contract) || !merge_inner_id(p, end, 13, result->sender)) return 0;
    return append_element_ids(&result->created, p, end, 7, 0);
}

/* The (shard, realm, num) of each entity a serialised TransactionRecord names, those given by a
 * positive number, as store.accounts.touched_entities reads them from the record: the accounts of
 * its hbar transfer list (10) and token transfer lists (11: transfers' accounts, NFTs' senders and
 * receivers), its payer (transactionID = 4, accountID = 2), its receipt's account and contract
 * (receipt = 1: 2 and 4), staking rewards' accounts (18), custom fees' collectors and effective
 * payers (13: 3 and 4), auto-associated accounts (14: 2), new pending airdrops' senders and
 * receivers (22: pending_airdrop_id = 1, then 1 and 2), the contract result's contract, created
 * contracts and sender (7 or 8). Fields merge as a parse merges them (occurrences of a message
 * field merge, later values win, an alias or EVM address after the number leaves the id without
 * one). Appended to out: 1, or 0 when the bytes are malformed (the parser decides), -1 on error. */
static int record_entity_list(const unsigned char *p, const unsigned char *end, EntityList *out) {
    int result = -1;
    ContractResult contract_result = {0, {0, 0, 0}, {0, 0, 0}};
    entity_list_init(&contract_result.created);
    int64_t payer[3] = {0, 0, 0}, account[3] = {0, 0, 0}, contract[3] = {0, 0, 0};
    Field field, element;
    while (p < end) {
        if (!next_field(&p, end, &field)) goto irregular;
        if (field.wire_type != WIRE_LEN) continue;
        int done = 1;
        switch (field.number) {
        case 1: /* receipt */
            if (!merge_inner_id(field.start, field.stop, 2, account) || !merge_inner_id(field.start, field.stop, 4, contract))
                done = 0;
            break;
        case 4: /* transactionID */
            if (!merge_inner_id(field.start, field.stop, 2, payer)) done = 0;
            break;
        case 7: /* contractCallResult */
        case 8: /* contractCreateResult */
            done = merge_contract_result(&contract_result, field.number, field.start, field.stop);
            break;
        case 10: /* transferList: accountAmounts' accountID */
            done = append_element_ids(out, field.start, field.stop, 1, 1);
            break;
        case 11: /* a token transfer list: transfers' accountID, NFTs' sender and receiver */
            done = append_element_ids(out, field.start, field.stop, 2, 1);
            if (done > 0) done = append_element_ids(out, field.start, field.stop, 3, 1);
            if (done > 0) done = append_element_ids(out, field.start, field.stop, 3, 2);
            break;
        case 13: /* an assessed custom fee: its collector, each effective payer */
            done = append_inner_id(out, field.start, field.stop, 3);
            if (done > 0) done = append_element_ids(out, field.start, field.stop, 4, 0);
            break;
        case 14: /* an automatic token association: its account */
            done = append_inner_id(out, field.start, field.stop, 2);
            break;
        case 18: /* a paid staking reward: its account */
            done = append_inner_id(out, field.start, field.stop, 1);
            break;
        case 22: { /* a new pending airdrop: its id's sender and receiver, the id's occurrences merged */
            int64_t sender[3] = {0, 0, 0}, receiver[3] = {0, 0, 0};
            const unsigned char *q = field.start;
            while (done > 0 && q < field.stop) {
                if (!next_field(&q, field.stop, &element)) {
                    done = 0;
                } else if (element.number == 1 && element.wire_type == WIRE_LEN &&
                           (!merge_inner_id(element.start, element.stop, 1, sender) ||
                            !merge_inner_id(element.start, element.stop, 2, receiver))) {
                    done = 0;
                }
            }
            if (done > 0 && (append_positive(out, sender) < 0 || append_positive(out, receiver) < 0)) done = -1;
            break;
        }
        default:
            break;
        }
        if (done < 0) goto done;
        if (done == 0) goto irregular;
    }
    if (append_positive(out, payer) < 0 || append_positive(out, account) < 0 || append_positive(out, contract) < 0 ||
        append_positive(out, contract_result.contract) < 0 || append_positive(out, contract_result.sender) < 0)
        goto done;
    if (append_all(out, &contract_result.created) < 0) goto done;
    result = 1;
    goto done;
irregular:
    result = 0;
done:
    entity_list_free(&contract_result.created);
    return result;
}


/* ---- renumbered_fields ----------------------------------------------------------------------- */

/* The fields of a serialised message that mapping names, in order, each under its new number:
 * mapping holds triples of bytes (number, new number, wire type), numbers below 128; a field of
 * another number or wire type is left out, a value is copied as it stands (a VARINT's bytes, a LEN
 * field's length and payload). Parsed into a message whose fields of the new numbers have the types
 * of the old ones, the result holds what a copy of each field would (occurrences merge as they
 * would have). None when the bytes are malformed or hold a group: the caller decides. */
static PyObject *renumbered_fields(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyBytes_CheckExact(args[1]) || PyBytes_GET_SIZE(args[1]) % 3 != 0) {
        PyErr_SetString(PyExc_TypeError, "renumbered_fields(data, mapping: bytes of (number, new number, wire type))");
        return NULL;
    }
    const unsigned char *mapping = (const unsigned char *)PyBytes_AS_STRING(args[1]);
    Py_ssize_t entries = PyBytes_GET_SIZE(args[1]) / 3;
    for (Py_ssize_t e = 0; e < entries; e++) {
        if (mapping[3 * e + 1] == 0 || mapping[3 * e + 1] > 127) {
            PyErr_SetString(PyExc_ValueError, "renumbered_fields: new numbers must be 1 to 127");
            return NULL;
        }
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *begin = view.buf, *end = begin + view.len;
    PyObject *result = NULL;
    Py_ssize_t size = 0;
    for (int pass = 0; pass < 2; pass++) {
        char *out = NULL;
        if (pass == 1) {
            result = PyBytes_FromStringAndSize(NULL, size);
            if (result == NULL) goto done;
            out = PyBytes_AS_STRING(result);
        }
        const unsigned char *p = begin;
        Field f;
        while (p < end) {
            const unsigned char *field_start = p;
            uint64_t tag;
            if (!read_varint(&field_start, end, &tag)) goto irregular;
            const unsigned char *value_start = field_start;
            if (!next_field(&p, end, &f)) goto irregular;
            int to = 0;
            for (Py_ssize_t e = 0; e < entries; e++) {
                if (f.number == mapping[3 * e] && f.wire_type == mapping[3 * e + 2]) {
                    to = mapping[3 * e + 1];
                    break;
                }
            }
            if (to == 0) continue;
            Py_ssize_t value_size = p - value_start;
            uint64_t new_tag = ((uint64_t)to << 3) | f.wire_type;
            if (pass == 0) {
                size += (Py_ssize_t)varint_size(new_tag) + value_size;
            } else {
                out = put_varint(out, new_tag);
                memcpy(out, value_start, (size_t)value_size);
                out += value_size;
            }
        }
    }
    goto done;
irregular:
    Py_XDECREF(result);
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&view);
    return result;
}

/* ---- block_items ----------------------------------------------------------------------------- */

/* An item of a Block read from its bytes when it has the common shape (formats.block._short_item):
 * a one-byte tag of a length-delimited field, a one- or two-byte length ending exactly at the end;
 * instances of cls (slots: kind, data, payload start), left out of the cyclic garbage collector
 * (an int, bytes and an int), or None for an item of any other shape (the Python walk reads it). */
static PyObject *block_items(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyType_Check(args[0]) || !PyTuple_CheckExact(args[1]) || PyTuple_GET_SIZE(args[1]) != 3 ||
        !PyList_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "block_items(cls, (slot descriptors), items: list of bytes)");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)args[0];
    Py_ssize_t offsets[3];
    if (slot_offsets(args[0], args[1], offsets, 3) < 0) return NULL;
    PyObject *items = args[2];
    Py_ssize_t count = PyList_GET_SIZE(items);
    PyObject *out = PyList_New(count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *data = PyList_GET_ITEM(items, i);
        if (!PyBytes_CheckExact(data)) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_TypeError, "block_items: expected a list of bytes");
            return NULL;
        }
        const unsigned char *bytes = (const unsigned char *)PyBytes_AS_STRING(data);
        Py_ssize_t size = PyBytes_GET_SIZE(data), length = -1, start = 0;
        if (size >= 2 && bytes[0] < 0x80 && (bytes[0] & 7) == WIRE_LEN) {
            if (bytes[1] < 0x80) {
                length = bytes[1];
                start = 2;
            } else if (size > 2 && bytes[2] > 0 && bytes[2] < 0x80) {
                length = (bytes[1] & 0x7F) | ((Py_ssize_t)bytes[2] << 7);
                start = 3;
            }
        }
        if (length < 0 || start + length != size) {
            PyList_SET_ITEM(out, i, Py_NewRef(Py_None));
            continue;
        }
        PyObject *values[3] = {PyLong_FromLong(bytes[0] >> 3), data, PyLong_FromSsize_t(start)};
        PyObject *item = (values[0] == NULL || values[2] == NULL) ? NULL : new_untracked(cls, offsets, values, 3);
        Py_XDECREF(values[0]);
        Py_XDECREF(values[2]);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* ---- record_summary -------------------------------------------------------------------------- */

/* What the transactions row and its indexes read of a serialised TransactionRecord: its receipt's
 * status, its transactionHash, its transactionID (payer shard, realm, num, valid start seconds and
 * nanos, scheduled, nonce), fields merged as a parse merges them (later values win, message fields'
 * occurrences merge, an alias after the payer's number leaves it without one); and which of the
 * fields the rare indexes read it holds (record_index_bit). */
typedef struct {
    const unsigned char *hash;
    Py_ssize_t hash_size;
    int32_t status, nonce, nanos;
    int has_id, scheduled, index_fields;
    int64_t payer[3], seconds;
} RecordSummary;

/* The bit (store.rows.record_index_fields) of a record field whose presence may give a transaction
 * index rows whatever its body's case: contractCreateResult (8, when it, not contractCallResult = 7,
 * is the body oneof's member), tokenTransferLists (11), scheduleRef (12),
 * automatic_token_associations (14), paid_staking_rewards (18); 0 for any other field. */
static int record_index_bit(uint64_t number) {
    switch (number) {
    case 8:
        return 1;
    case 11:
        return 2;
    case 12:
        return 4;
    case 14:
        return 8;
    case 18:
        return 16;
    default:
        return 0;
    }
}

/* The bit (store.rows.record_index_fields) of a record whose body oneof's member is
 * contractCallResult (7): the contract index (store.contract_index) reads it whatever the body's case. */
#define CONTRACT_CALL_RESULT_BIT 32

/* 1, or 0 when the bytes are malformed. */
static int read_record_summary(const unsigned char *p, const unsigned char *end, RecordSummary *s) {
    memset(s, 0, sizeof *s);
    uint64_t result_member = 0;
    Field field, part;
    while (p < end) {
        if (!next_field(&p, end, &field)) return 0;
        if (field.wire_type != WIRE_LEN) continue;
        if (field.number == 2) {
            s->hash = field.start;
            s->hash_size = field.stop - field.start;
        } else if (field.number == 1) { /* receipt: its status */
            const unsigned char *q = field.start;
            while (q < field.stop) {
                if (!next_field(&q, field.stop, &part)) return 0;
                if (part.number == 1 && part.wire_type == WIRE_VARINT) s->status = (int32_t)(uint32_t)part.varint;
            }
        } else if (field.number == 4) { /* transactionID */
            s->has_id = 1;
            const unsigned char *q = field.start;
            while (q < field.stop) {
                if (!next_field(&q, field.stop, &part)) return 0;
                if (part.wire_type == WIRE_LEN && part.number == 1) {
                    if (!merge_timestamp(part.start, part.stop, &s->seconds, &s->nanos)) return 0;
                } else if (part.wire_type == WIRE_LEN && part.number == 2) {
                    if (!merge_entity_id(part.start, part.stop, s->payer)) return 0;
                } else if (part.wire_type == WIRE_VARINT && part.number == 3) {
                    s->scheduled = part.varint != 0;
                } else if (part.wire_type == WIRE_VARINT && part.number == 4) {
                    s->nonce = (int32_t)(uint32_t)part.varint;
                }
            }
        } else if (field.number == 7 || field.number == 8) {
            result_member = field.number;
        } else {
            s->index_fields |= record_index_bit(field.number);
        }
    }
    if (result_member == 8) s->index_fields |= record_index_bit(8);
    if (result_member == 7) s->index_fields |= CONTRACT_CALL_RESULT_BIT;
    return 1;
}


/* ---- block hashing (formats.block_hash) ------------------------------------------------------ */

/* SHA-384 as FIPS 180-4 defines it (SHA-512's compression, its own initial value, the digest cut
 * to 48 bytes), written here from the standard: a block's root hashes every item as a leaf and
 * as many inner nodes, each a message of one or two blocks, where hashlib's per-call cost is most
 * of the work. Checked against hashlib byte for byte (tests/unit/formats/test_block_hash_compiled.py). */

static const uint64_t SHA512_K[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL,
    0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL,
    0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL,
    0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
    0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL,
    0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL, 0x2de92c6f592b0275ULL,
    0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL,
    0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
    0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL,
    0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL,
    0x92722c851482353bULL, 0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL,
    0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
    0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL,
    0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL,
    0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL,
    0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL,
    0xc67178f2e372532bULL, 0xca273eceea26619cULL, 0xd186b8c721c0c207ULL,
    0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL,
    0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
    0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL,
    0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL,
};
static const uint64_t SHA384_IV[8] = {
    0xcbbb9d5dc1059ed8ULL, 0x629a292a367cd507ULL,
    0x9159015a3070dd17ULL, 0x152fecd8f70e5939ULL,
    0x67332667ffc00b31ULL, 0x8eb44a8768581511ULL,
    0xdb0c2e0d64f98fa7ULL, 0x47b5481dbefa4fa4ULL,
};

typedef struct {
    uint64_t state[8];
    uint64_t length;
    unsigned char block[128];
    size_t used;
} Sha384;

#define ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

static inline uint64_t load_be64(const unsigned char *p) {
    return ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) | ((uint64_t)p[3] << 32) |
           ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) | ((uint64_t)p[6] << 8) | (uint64_t)p[7];
}

static void sha512_compress(uint64_t state[8], const unsigned char *block) {
    uint64_t w[16];
    uint64_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint64_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 80; t++) {
        uint64_t word;
        if (t < 16) {
            word = w[t] = load_be64(block + 8 * t);
        } else {
            uint64_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
            uint64_t s0 = ROTR64(w15, 1) ^ ROTR64(w15, 8) ^ (w15 >> 7);
            uint64_t s1 = ROTR64(w2, 19) ^ ROTR64(w2, 61) ^ (w2 >> 6);
            word = w[t & 15] = w[t & 15] + s0 + w[(t - 7) & 15] + s1;
        }
        uint64_t t1 = h + (ROTR64(e, 14) ^ ROTR64(e, 18) ^ ROTR64(e, 41)) + ((e & f) ^ (~e & g)) + SHA512_K[t] + word;
        uint64_t t2 = (ROTR64(a, 28) ^ ROTR64(a, 34) ^ ROTR64(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

static void sha384_init(Sha384 *s) {
    memcpy(s->state, SHA384_IV, sizeof s->state);
    s->length = 0;
    s->used = 0;
}

static void sha384_update(Sha384 *s, const unsigned char *data, size_t size) {
    if (size == 0) return; /* data may then be NULL (the empty tree's leaf), which memcpy may not take */
    s->length += size;
    if (s->used) {
        size_t take = 128 - s->used < size ? 128 - s->used : size;
        memcpy(s->block + s->used, data, take);
        s->used += take;
        data += take;
        size -= take;
        if (s->used < 128) return;
        sha512_compress(s->state, s->block);
        s->used = 0;
    }
    for (; size >= 128; data += 128, size -= 128) sha512_compress(s->state, data);
    memcpy(s->block, data, size);
    s->used = size;
}

static void sha384_final(Sha384 *s, unsigned char out[48]) {
    uint64_t bits = s->length << 3; /* messages here are far below 2^61 bytes: the top 64 bits are 0 */
    s->block[s->used++] = 0x80;
    if (s->used > 112) {
        memset(s->block + s->used, 0, 128 - s->used);
        sha512_compress(s->state, s->block);
        s->used = 0;
    }
    memset(s->block + s->used, 0, 120 - s->used);
    for (int i = 0; i < 8; i++) s->block[120 + i] = (unsigned char)(bits >> (56 - 8 * i));
    sha512_compress(s->state, s->block);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (unsigned char)(s->state[i] >> (56 - 8 * j));
}

#define HASH_BYTES 48
#define TREE_LEVELS 64

/* Many SHA-384 digests at once: messages prefix ‖ data (one domain byte, then bytes), each digest
 * independent of the others, so that on x86-64 with AVX-512 eight run side by side, one per
 * 64-bit lane (the same rounds, on vectors); elsewhere one after another. */

typedef struct {
    unsigned char prefix;
    const unsigned char *data;
    size_t size;
} Message;

static void sha384_one_by_one(const Message *messages, size_t count, unsigned char *out) {
    for (size_t i = 0; i < count; i++) {
        Sha384 s;
        sha384_init(&s);
        sha384_update(&s, &messages[i].prefix, 1);
        sha384_update(&s, messages[i].data, messages[i].size);
        sha384_final(&s, out + HASH_BYTES * i);
    }
}

/* The lanes need the target attribute and the AVX-512 intrinsics (gcc 5, clang 8); any other
 * compiler, or HEDERA_HISTORY_NO_LANES defined, builds the digests one after another alone. */
#if defined(__x86_64__) && !defined(HEDERA_HISTORY_NO_LANES) &&                                                       \
    (defined(__clang__) ? __clang_major__ >= 8 : defined(__GNUC__) && __GNUC__ >= 5)
#include <cpuid.h>
#include <immintrin.h>
#define SHA_LANES 8

#define LANES_ATTR __attribute__((target("avx512f")))

/* Block `index` of the padded message: prefix ‖ data ‖ 0x80 ‖ zeros ‖ 128-bit bit length. */
static void message_block(const Message *m, size_t index, unsigned char block[128]) {
    size_t total = m->size + 1, start = 128 * index;
    memset(block, 0, 128);
    for (size_t at = 0; at < 128; ) { /* the message bytes that fall in this block */
        size_t position = start + at;
        if (position >= total) break;
        if (position == 0) {
            block[at++] = m->prefix;
            continue;
        }
        size_t take = total - position < 128 - at ? total - position : 128 - at;
        memcpy(block + at, m->data + position - 1, take);
        at += take;
    }
    if (total >= start && total < start + 128) block[total - start] = 0x80;
    size_t blocks = (total + 17 + 127) / 128;
    if (index == blocks - 1) {
        uint64_t bits = (uint64_t)total << 3;
        for (int i = 0; i < 8; i++) block[120 + i] = (unsigned char)(bits >> (56 - 8 * i));
    }
}

static size_t message_blocks(const Message *m) { return (m->size + 1 + 17 + 127) / 128; }

static void digest_out(const uint64_t state[8], unsigned char out[HASH_BYTES]) {
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++) out[8 * i + j] = (unsigned char)(state[i] >> (56 - 8 * j));
}

LANES_ATTR static inline __m512i big_sigma0(__m512i x) {
    return _mm512_ternarylogic_epi64(_mm512_ror_epi64(x, 28), _mm512_ror_epi64(x, 34), _mm512_ror_epi64(x, 39), 0x96);
}
LANES_ATTR static inline __m512i big_sigma1(__m512i x) {
    return _mm512_ternarylogic_epi64(_mm512_ror_epi64(x, 14), _mm512_ror_epi64(x, 18), _mm512_ror_epi64(x, 41), 0x96);
}
LANES_ATTR static inline __m512i small_sigma0(__m512i x) {
    return _mm512_ternarylogic_epi64(_mm512_ror_epi64(x, 1), _mm512_ror_epi64(x, 8), _mm512_srli_epi64(x, 7), 0x96);
}
LANES_ATTR static inline __m512i small_sigma1(__m512i x) {
    return _mm512_ternarylogic_epi64(_mm512_ror_epi64(x, 19), _mm512_ror_epi64(x, 61), _mm512_srli_epi64(x, 6), 0x96);
}

/* sha512_compress on eight lanes: state[word][lane], words[t][lane] the big-endian words read. */
LANES_ATTR static void sha512_compress_lanes(uint64_t state[8][SHA_LANES], const uint64_t words[16][SHA_LANES]) {
    __m512i w[16];
    for (int t = 0; t < 16; t++) w[t] = _mm512_loadu_si512((const void *)words[t]);
    __m512i a = _mm512_loadu_si512((const void *)state[0]), b = _mm512_loadu_si512((const void *)state[1]);
    __m512i c = _mm512_loadu_si512((const void *)state[2]), d = _mm512_loadu_si512((const void *)state[3]);
    __m512i e = _mm512_loadu_si512((const void *)state[4]), f = _mm512_loadu_si512((const void *)state[5]);
    __m512i g = _mm512_loadu_si512((const void *)state[6]), h = _mm512_loadu_si512((const void *)state[7]);
    for (int t = 0; t < 80; t++) {
        if (t >= 16)
            w[t & 15] = _mm512_add_epi64(_mm512_add_epi64(w[t & 15], small_sigma0(w[(t - 15) & 15])),
                                         _mm512_add_epi64(w[(t - 7) & 15], small_sigma1(w[(t - 2) & 15])));
        __m512i t1 = _mm512_add_epi64(_mm512_add_epi64(h, big_sigma1(e)),
                                      _mm512_add_epi64(_mm512_ternarylogic_epi64(e, f, g, 0xCA),
                                                       _mm512_add_epi64(_mm512_set1_epi64((long long)SHA512_K[t]), w[t & 15])));
        __m512i t2 = _mm512_add_epi64(big_sigma0(a), _mm512_ternarylogic_epi64(a, b, c, 0xE8));
        h = g;
        g = f;
        f = e;
        e = _mm512_add_epi64(d, t1);
        d = c;
        c = b;
        b = a;
        a = _mm512_add_epi64(t1, t2);
    }
    __m512i next[8] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; i++)
        _mm512_storeu_si512((void *)state[i], _mm512_add_epi64(_mm512_loadu_si512((const void *)state[i]), next[i]));
}

/* Eight lanes, each taking the next message when its own is done (the inputs are independent, so
 * the order they are hashed in changes nothing). */
static void sha384_in_lanes(const Message *messages, size_t count, unsigned char *out) {
    uint64_t state[8][SHA_LANES], words[16][SHA_LANES];
    size_t current[SHA_LANES], block_index[SHA_LANES], blocks[SHA_LANES];
    int active[SHA_LANES];
    size_t next = 0;
    unsigned char block[128];
    for (int lane = 0; lane < SHA_LANES; lane++) {
        active[lane] = 0;
        if (next < count) {
            active[lane] = 1;
            current[lane] = next++;
            block_index[lane] = 0;
            blocks[lane] = message_blocks(&messages[current[lane]]);
        }
        for (int i = 0; i < 8; i++) state[i][lane] = SHA384_IV[i];
    }
    for (;;) {
        int any = 0;
        for (int lane = 0; lane < SHA_LANES; lane++) {
            if (active[lane]) {
                any = 1;
                message_block(&messages[current[lane]], block_index[lane], block);
                for (int t = 0; t < 16; t++) words[t][lane] = load_be64(block + 8 * t);
            } else {
                for (int t = 0; t < 16; t++) words[t][lane] = 0;
            }
        }
        if (!any) break;
        sha512_compress_lanes(state, words);
        for (int lane = 0; lane < SHA_LANES; lane++) {
            if (!active[lane] || ++block_index[lane] < blocks[lane]) continue;
            uint64_t done[8];
            for (int i = 0; i < 8; i++) {
                done[i] = state[i][lane];
                state[i][lane] = SHA384_IV[i];
            }
            digest_out(done, out + HASH_BYTES * current[lane]);
            if (next < count) {
                current[lane] = next++;
                block_index[lane] = 0;
                blocks[lane] = message_blocks(&messages[current[lane]]);
            } else {
                active[lane] = 0;
            }
        }
    }
}

/* Whether AVX-512 Foundation may run here: the processor has it (CPUID.(7,0):EBX bit 16) and the
 * operating system saves its registers (CPUID.1:ECX OSXSAVE, then XCR0's SSE, AVX, opmask and
 * ZMM bits all set: 0xE6), the checks the Intel SDM asks for. Read here rather than through
 * __builtin_cpu_supports, which skipped the XCR0 check in gcc before 6.5, 7.4 and 8 (gcc bug 85100). */
static int lanes_supported(void) {
    static int supported = -1;
    if (supported < 0) {
        unsigned a, b, c, d, xcr0_low, xcr0_high;
        supported = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27)) && __get_cpuid_max(0, NULL) >= 7) {
            __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0)); /* xgetbv */
            __cpuid_count(7, 0, a, b, c, d);
            supported = (xcr0_low & 0xE6) == 0xE6 && (b & (1u << 16)) != 0;
        }
    }
    return supported;
}
#else
static int lanes_supported(void) { return 0; }
static void sha384_in_lanes(const Message *messages, size_t count, unsigned char *out) {
    sha384_one_by_one(messages, count, out);
}
#endif

/* sha384_lanes(): how many digests run side by side on this machine (8 with AVX-512, else 1). */
static PyObject *sha384_lanes(PyObject *module, PyObject *unused) { return PyLong_FromLong(lanes_supported() ? 8 : 1); }

/* The SHA-384 of each message into out (48 bytes each, in order). */
static void sha384_many(const Message *messages, size_t count, unsigned char *out, int allow_lanes) {
    if (allow_lanes && count > 1 && lanes_supported())
        sha384_in_lanes(messages, count, out);
    else
        sha384_one_by_one(messages, count, out);
}

/* The streaming tree's root (formats.block_hash.StreamingTree) over count nodes (48 bytes each,
 * contiguous), level by level: each level's pairs hashed together (H(0x02 ‖ left ‖ right), the
 * pair's bytes already side by side), an odd last node kept as that level's entry of the stack
 * StreamingTree would hold, and the entries folded from the right as its root() folds them.
 * `spare` holds count / 2 nodes and `pairs` count / 2 messages; `nodes` is overwritten. */
static void streaming_root(unsigned char *nodes, size_t count, unsigned char *spare, Message *pairs, int allow_lanes,
                           unsigned char out[HASH_BYTES]) {
    unsigned char entries[TREE_LEVELS][HASH_BYTES];
    int depth = 0;
    while (count > 0) {
        if (count & 1) memcpy(entries[depth++], nodes + HASH_BYTES * (count - 1), HASH_BYTES);
        size_t half = count / 2;
        for (size_t i = 0; i < half; i++) pairs[i] = (Message){0x02, nodes + 2 * HASH_BYTES * i, 2 * HASH_BYTES};
        sha384_many(pairs, half, spare, allow_lanes);
        unsigned char *swap = nodes;
        nodes = spare;
        spare = swap;
        count = half;
    }
    if (depth == 0) { /* the empty tree: H(0x00) */
        Message empty = {0x00, NULL, 0};
        sha384_one_by_one(&empty, 1, out);
        return;
    }
    memcpy(out, entries[0], HASH_BYTES);
    for (int level = 1; level < depth; level++) {
        unsigned char both[2 * HASH_BYTES];
        memcpy(both, entries[level], HASH_BYTES);
        memcpy(both + HASH_BYTES, out, HASH_BYTES);
        Message pair = {0x02, both, sizeof both};
        sha384_one_by_one(&pair, 1, out);
    }
}

#define NOT_HASHED 0xFF
#define MAX_SUBTREES 16

/* (roots, hashed): the root of each of `subtrees` streaming trees over the leaves H(0x00 ‖ data) of
 * the items (instances of cls, slots kind and data) that positions (kind -> subtree, NOT_HASHED for
 * none) sends there, in order, and how many were hashed. None where an item's kind is past
 * positions or has any other value there: formats.block_hash decides those (and names the fault).
 * A sixth argument, false, keeps to one digest at a time (the tests compare both ways). */
static PyObject *block_subtree_roots(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if ((nargs != 5 && nargs != 6) || !PyType_Check(args[0]) ||
        !(PyTuple_CheckExact(args[2]) || PyList_CheckExact(args[2])) || !PyBytes_CheckExact(args[3]) ||
        !PyLong_CheckExact(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "block_subtree_roots(cls, (kind, data slot descriptors), items: tuple or list, positions: "
                        "bytes, subtrees: int[, lanes: bool])");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)args[0];
    Py_ssize_t offsets[2];
    if (slot_offsets(args[0], args[1], offsets, 2) < 0) return NULL;
    long subtrees = PyLong_AsLong(args[4]);
    if (subtrees < 0 || subtrees > MAX_SUBTREES) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "block_subtree_roots: 0 to 16 subtrees");
        return NULL;
    }
    int allow_lanes = nargs == 6 ? PyObject_IsTrue(args[5]) : 1;
    if (allow_lanes < 0) return NULL;
    const unsigned char *positions = (const unsigned char *)PyBytes_AS_STRING(args[3]);
    Py_ssize_t known = PyBytes_GET_SIZE(args[3]);
    PyObject *items = args[2], *result = NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(items);
    PyObject **members = PySequence_Fast_ITEMS(items);
    size_t sizes[MAX_SUBTREES] = {0}, starts[MAX_SUBTREES], hashed = 0;
    unsigned char *where = PyMem_Malloc((size_t)count + 1);
    Message *messages = PyMem_Malloc(sizeof(Message) * ((size_t)count + 1));
    Message *pairs = PyMem_Malloc(sizeof(Message) * ((size_t)count / 2 + 1));
    unsigned char *leaves = PyMem_Malloc(HASH_BYTES * ((size_t)count + 1));
    unsigned char *spare = PyMem_Malloc(HASH_BYTES * ((size_t)count / 2 + 1));
    if (where == NULL || messages == NULL || pairs == NULL || leaves == NULL || spare == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = members[i];
        if (!Py_IS_TYPE(item, cls)) {
            PyErr_SetString(PyExc_TypeError, "block_subtree_roots: expected instances of the class");
            goto done;
        }
        PyObject *kind = *(PyObject **)((char *)item + offsets[0]);
        PyObject *data = *(PyObject **)((char *)item + offsets[1]);
        if (kind == NULL || data == NULL || !PyLong_Check(kind) || !PyBytes_Check(data)) {
            PyErr_SetString(PyExc_TypeError, "block_subtree_roots: expected an int kind and bytes data");
            goto done;
        }
        int overflow = 0;
        long number = PyLong_AsLongAndOverflow(kind, &overflow);
        if (overflow || number < 0 || number >= known) goto irregular;
        where[i] = positions[number];
        if (where[i] == NOT_HASHED) continue;
        if (where[i] >= subtrees) goto irregular;
        sizes[where[i]]++;
        hashed++;
    }
    for (long t = 0, at = 0; t < subtrees; at += (long)sizes[t], t++) starts[t] = (size_t)at;
    size_t filled[MAX_SUBTREES] = {0};
    for (Py_ssize_t i = 0; i < count; i++) { /* each subtree's items together, in stream order */
        if (where[i] == NOT_HASHED) continue;
        PyObject *data = *(PyObject **)((char *)members[i] + offsets[1]);
        messages[starts[where[i]] + filled[where[i]]++] =
            (Message){0x00, (const unsigned char *)PyBytes_AS_STRING(data), (size_t)PyBytes_GET_SIZE(data)};
    }
    sha384_many(messages, hashed, leaves, allow_lanes);
    PyObject *roots = PyTuple_New(subtrees);
    if (roots == NULL) goto done;
    for (long t = 0; t < subtrees; t++) {
        unsigned char root[HASH_BYTES];
        streaming_root(leaves + HASH_BYTES * starts[t], sizes[t], spare, pairs, allow_lanes, root);
        PyObject *value = PyBytes_FromStringAndSize((const char *)root, HASH_BYTES);
        if (value == NULL) {
            Py_DECREF(roots);
            goto done;
        }
        PyTuple_SET_ITEM(roots, t, value);
    }
    result = Py_BuildValue("(Nn)", roots, (Py_ssize_t)hashed);
    goto done;
irregular:
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(where);
    PyMem_Free(messages);
    PyMem_Free(pairs);
    PyMem_Free(leaves);
    PyMem_Free(spare);
    return result;
}

/* ---- Baby-JubJub (verify.tss.babyjubjub) ---------------------------------------------------- */

/* Scalar multiplication on ed_on_bn254 for the TSS roster's Schnorr keys: a ledger's roster costs
 * two subgroup checks and a proof of knowledge a node, each a multiplication by a ~250-bit scalar,
 * and the field arithmetic of one is about 1,900 products of 254-bit numbers. The BN254 scalar field
 * in Montgomery form (4 limbs of 64 bits, products in unsigned __int128: gcc and clang on 64-bit
 * platforms), and the very steps of babyjubjub._multiply: double-and-add from the top bit, each step
 * the unified addition, then x/z and y/z; so any input gives the Python code's point. */

typedef struct {
    uint64_t v[4];
} Fe;

static const uint64_t FR_MODULUS[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,
                                       0x30644e72e131a029ULL};
static const uint64_t FR_MODULUS_MINUS_2[4] = {0x43e1f593efffffffULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,
                                               0x30644e72e131a029ULL};
static const uint64_t FR_INVERSE = 0xc2e1f593efffffffULL; /* −modulus⁻¹ mod 2^64 */
static const Fe FR_R2 = {{0x1bb8e645ae216da7ULL, 0x53fe3ab1e35c59e3ULL, 0x8c49833d53bb8085ULL, 0x0216d0b17f4e44a5ULL}};
static const Fe FR_ONE = {{0xac96341c4ffffffbULL, 0x36fc76959f60cd29ULL, 0x666ea36f7879462eULL, 0x0e0a77c19a07df2fULL}};
static const Fe FR_PLAIN_ONE = {{1, 0, 0, 0}};
/* d = 168696/168700 in Montgomery form (a = 1) */
static const Fe EDWARDS_D = {{0xe7a66d1d9fb08e74ULL, 0xd775bbd5e17629dcULL, 0x70ccd097286ef1e7ULL, 0x00045809398fdf98ULL}};

/* out = value − modulus when value (5 limbs) is at least the modulus, else value. */
static void fe_reduce_once(Fe *out, const uint64_t value[5]) {
    uint64_t reduced[4], borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 difference = (unsigned __int128)value[i] - FR_MODULUS[i] - borrow;
        reduced[i] = (uint64_t)difference;
        borrow = (uint64_t)(difference >> 64) & 1;
    }
    int below = value[4] == 0 && borrow;
    for (int i = 0; i < 4; i++) out->v[i] = below ? value[i] : reduced[i];
}

/* Montgomery product a·b·2^−256 mod the modulus (CIOS); inputs below 2^256 and b below the modulus. */
static void fe_mul(Fe *out, const Fe *a, const Fe *b) {
    uint64_t t[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        unsigned __int128 carry = 0;
        for (int j = 0; j < 4; j++) {
            carry += (unsigned __int128)a->v[j] * b->v[i] + t[j];
            t[j] = (uint64_t)carry;
            carry >>= 64;
        }
        carry += t[4];
        t[4] = (uint64_t)carry;
        t[5] = (uint64_t)(carry >> 64);
        uint64_t m = t[0] * FR_INVERSE;
        carry = ((unsigned __int128)m * FR_MODULUS[0] + t[0]) >> 64;
        for (int j = 1; j < 4; j++) {
            carry += (unsigned __int128)m * FR_MODULUS[j] + t[j];
            t[j - 1] = (uint64_t)carry;
            carry >>= 64;
        }
        carry += t[4];
        t[3] = (uint64_t)carry;
        t[4] = t[5] + (uint64_t)(carry >> 64);
    }
    fe_reduce_once(out, t);
}

static void fe_add(Fe *out, const Fe *a, const Fe *b) {
    uint64_t sum[5];
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; i++) {
        carry += (unsigned __int128)a->v[i] + b->v[i];
        sum[i] = (uint64_t)carry;
        carry >>= 64;
    }
    sum[4] = (uint64_t)carry;
    fe_reduce_once(out, sum);
}

static void fe_sub(Fe *out, const Fe *a, const Fe *b) {
    uint64_t difference[4], borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 step = (unsigned __int128)a->v[i] - b->v[i] - borrow;
        difference[i] = (uint64_t)step;
        borrow = (uint64_t)(step >> 64) & 1;
    }
    unsigned __int128 carry = 0;
    for (int i = 0; i < 4; i++) { /* add the modulus back when it went below zero */
        carry += (unsigned __int128)difference[i] + (borrow ? FR_MODULUS[i] : 0);
        out->v[i] = (uint64_t)carry;
        carry >>= 64;
    }
}

static int fe_is_zero(const Fe *a) { return (a->v[0] | a->v[1] | a->v[2] | a->v[3]) == 0; }

/* a^(modulus − 2): the inverse of a nonzero a (Fermat), in Montgomery form. */
static void fe_invert(Fe *out, const Fe *a) {
    Fe result = FR_ONE;
    for (int bit = 253; bit >= 0; bit--) {
        fe_mul(&result, &result, &result);
        if ((FR_MODULUS_MINUS_2[bit / 64] >> (bit % 64)) & 1) fe_mul(&result, &result, a);
    }
    *out = result;
}

static void fe_from_le(Fe *out, const unsigned char *bytes) {
    Fe plain;
    for (int i = 0; i < 4; i++) {
        uint64_t limb = 0;
        for (int j = 7; j >= 0; j--) limb = (limb << 8) | bytes[8 * i + j];
        plain.v[i] = limb;
    }
    fe_mul(out, &plain, &FR_R2);
}

static void fe_to_le(unsigned char *bytes, const Fe *a) {
    Fe plain;
    fe_mul(&plain, a, &FR_PLAIN_ONE);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) bytes[8 * i + j] = (unsigned char)(plain.v[i] >> (8 * j));
}

/* An element from 32 bytes little-endian, in Montgomery form; 0 when it is not below the modulus. */
static int fe_read_below_modulus(Fe *out, const unsigned char *bytes) {
    for (int i = 3; i >= 0; i--) {
        uint64_t limb = 0;
        for (int j = 7; j >= 0; j--) limb = (limb << 8) | bytes[8 * i + j];
        if (limb != FR_MODULUS[i]) {
            if (limb > FR_MODULUS[i]) return 0;
            break;
        }
        if (i == 0) return 0; /* equal to the modulus */
    }
    fe_from_le(out, bytes);
    return 1;
}

/* Extended coordinates (X : Y : T : Z), x = X/Z, y = Y/Z, x·y = T/Z. */
typedef struct {
    Fe x, y, t, z;
} Extended;

/* babyjubjub._add: the unified addition (Hisil–Wong–Carter–Dawson 2008) with a = 1. */
static void edwards_add(Extended *out, const Extended *p, const Extended *q) {
    Fe a, b, c, d, e, f, g, h, sum_p, sum_q;
    fe_mul(&a, &p->x, &q->x);
    fe_mul(&b, &p->y, &q->y);
    fe_mul(&c, &EDWARDS_D, &p->t);
    fe_mul(&c, &c, &q->t);
    fe_mul(&d, &p->z, &q->z);
    fe_add(&sum_p, &p->x, &p->y);
    fe_add(&sum_q, &q->x, &q->y);
    fe_mul(&e, &sum_p, &sum_q);
    fe_sub(&e, &e, &a);
    fe_sub(&e, &e, &b);
    fe_sub(&f, &d, &c);
    fe_add(&g, &d, &c);
    fe_sub(&h, &b, &a);
    fe_mul(&out->x, &e, &f);
    fe_mul(&out->y, &g, &h);
    fe_mul(&out->t, &e, &h);
    fe_mul(&out->z, &f, &g);
}

/* babyjubjub_multiply(point: 64 bytes, x ‖ y little-endian, each below the modulus; scalar: 32
 * bytes little-endian) -> the product as 64 bytes, or None where z ends at 0 (off-curve input: the
 * Python code then raises as it does). */
static PyObject *babyjubjub_multiply(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyBytes_CheckExact(args[0]) || PyBytes_GET_SIZE(args[0]) != 64 || !PyBytes_CheckExact(args[1]) ||
        PyBytes_GET_SIZE(args[1]) != 32) {
        PyErr_SetString(PyExc_TypeError, "babyjubjub_multiply(point: 64 bytes, scalar: 32 bytes)");
        return NULL;
    }
    const unsigned char *encoded = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    const unsigned char *scalar = (const unsigned char *)PyBytes_AS_STRING(args[1]);
    Extended point, result;
    if (!fe_read_below_modulus(&point.x, encoded) || !fe_read_below_modulus(&point.y, encoded + 32)) {
        PyErr_SetString(PyExc_ValueError, "babyjubjub_multiply: a coordinate is not below the modulus");
        return NULL;
    }
    fe_mul(&point.t, &point.x, &point.y);
    point.z = FR_ONE;
    memset(&result, 0, sizeof result);
    result.y = FR_ONE;
    result.z = FR_ONE;
    int top = 255;
    while (top >= 0 && !((scalar[top / 8] >> (top % 8)) & 1)) top--;
    for (int bit = top; bit >= 0; bit--) {
        edwards_add(&result, &result, &result);
        if ((scalar[bit / 8] >> (bit % 8)) & 1) edwards_add(&result, &result, &point);
    }
    if (fe_is_zero(&result.z)) Py_RETURN_NONE;
    Fe inverse, x, y;
    fe_invert(&inverse, &result.z);
    fe_mul(&x, &result.x, &inverse);
    fe_mul(&y, &result.y, &inverse);
    unsigned char out[64];
    fe_to_le(out, &x);
    fe_to_le(out + 32, &y);
    return PyBytes_FromStringAndSize((const char *)out, 64);
}

/* ---- block_transaction_groups ---------------------------------------------------------------- */

/* A native block's items grouped into transactions (formats.block_transactions' walk), read from
 * the items' wire bytes without building their messages. */

#define ITEM_SIGNED_TRANSACTION 4
#define ITEM_TRANSACTION_RESULT 5
#define ITEM_TRANSACTION_OUTPUT 6
#define ITEM_STATE_CHANGES 7
#define ITEM_TRACE_DATA 11

/* A Timestamp that holds nothing but seconds and nanos (later occurrences win): 0 for anything else
 * (an unknown field would take part in the messages' comparison). */
static int plain_timestamp(const unsigned char *p, const unsigned char *end, int64_t *seconds, int32_t *nanos) {
    Field f;
    while (p < end) {
        if (!next_field(&p, end, &f) || f.wire_type != WIRE_VARINT) return 0;
        if (f.number == 1) *seconds = (int64_t)f.varint;
        else if (f.number == 2) *nanos = (int32_t)(uint32_t)f.varint;
        else return 0;
    }
    return 1;
}

/* The one Timestamp field `number` of a message: 1 when present once and plain, 0 when absent, -1
 * for anything else (twice, or not plain: the messages then decide). */
static int timestamp_field(const unsigned char *p, const unsigned char *end, uint64_t number, int64_t *seconds,
                           int32_t *nanos) {
    Field f;
    int found = 0;
    while (p < end) {
        if (!next_field(&p, end, &f)) return -1;
        if (f.number != number) continue;
        if (f.wire_type != WIRE_LEN || found || !plain_timestamp(f.start, f.stop, seconds, nanos)) return -1;
        found = 1;
    }
    return found;
}

typedef struct {
    int64_t seconds, parent_seconds;
    int32_t nanos, parent_nanos;
    int has_parent;
    Py_ssize_t parent;
} Grouped;

typedef struct {
    Py_ssize_t count, index;
    const int *kinds;
    const unsigned char *const *payloads;
    const Py_ssize_t *sizes;
} Walk;

/* _Grouping._take: the next item's index when it is of kind (consumed), else -1; state changes of no
 * transaction in between are consumed, except while outputs or trace data are read. */
static Py_ssize_t take(Walk *w, int kind) {
    int skips = kind != ITEM_TRANSACTION_OUTPUT && kind != ITEM_TRACE_DATA;
    Py_ssize_t index = w->index;
    while (index < w->count) {
        if (w->kinds[index] == kind) {
            w->index = index + 1;
            return index;
        }
        if (w->kinds[index] == ITEM_STATE_CHANGES && skips) {
            index++;
            continue;
        }
        break;
    }
    w->index = index;
    return -1;
}

/* The parent's index by the reference's rule (_Grouping._parent), or -1. */
static Py_ssize_t grouped_parent(const Grouped *found, Py_ssize_t count, const Grouped *t) {
    if (!t->has_parent || count == 0) return -1;
    const Grouped *previous = &found[count - 1];
    if (previous->seconds == t->parent_seconds && previous->nanos == t->parent_nanos) return count - 1;
    if (previous->parent < 0) return -1;
    const Grouped *parent = &found[previous->parent];
    if (parent->seconds == t->parent_seconds && parent->nanos == t->parent_nanos) return previous->parent;
    if (parent->has_parent && parent->parent_seconds == t->parent_seconds && parent->parent_nanos == t->parent_nanos)
        return parent->parent;
    return -1;
}

/* The name a tuple of names gives number, or NULL (for a number past it, or None there). */
static PyObject *case_name(PyObject *names, uint64_t number) {
    if (number >= (uint64_t)PyTuple_GET_SIZE(names)) return NULL;
    PyObject *name = PyTuple_GET_ITEM(names, (Py_ssize_t)number);
    return name == Py_None ? NULL : name;
}

/* A SignedTransaction's body bytes and hash flag, and its body's data case (the last field whose
 * number data_cases names); 0 when irregular (a field of an unexpected wire type, no body). */
static int signed_facts(const unsigned char *p, const unsigned char *end, PyObject *data_cases,
                        const unsigned char **body, const unsigned char **body_end, int *legacy,
                        long *data_case) {
    Field f;
    *body = NULL;
    *legacy = 0;
    *data_case = 0;
    while (p < end) {
        if (!next_field(&p, end, &f)) return 0;
        if (f.number > 3) continue;
        if (f.number == 3) {
            if (f.wire_type != WIRE_VARINT) return 0;
            *legacy = f.varint != 0;
        } else if (f.wire_type != WIRE_LEN) {
            return 0;
        } else if (f.number == 1) {
            *body = f.start;
            *body_end = f.stop;
        }
    }
    if (*body == NULL) return 0;
    const unsigned char *q = *body;
    while (q < *body_end) {
        if (!next_field(&q, *body_end, &f)) return 0;
        if (case_name(data_cases, f.number) != NULL) {
            if (f.wire_type != WIRE_LEN) return 0;
            *data_case = (long)f.number;
        }
    }
    return 1;
}

/* The name of a TransactionOutput's oneof case (the last of its fields names names), a new
 * reference: None when it has none, NULL when irregular (a case of another wire type). */
static PyObject *output_case(const unsigned char *p, const unsigned char *end, PyObject *names) {
    Field f;
    PyObject *found = Py_None;
    while (p < end) {
        if (!next_field(&p, end, &f)) return NULL;
        PyObject *name = case_name(names, f.number);
        if (name != NULL) {
            if (f.wire_type != WIRE_LEN) return NULL;
            found = name;
        }
    }
    return Py_NewRef(found);
}

/* A Transaction of the signed transaction bytes alone (signedTransactionBytes, field 5), as
 * serialising it writes it. */
static PyObject *transaction_wrapping(const unsigned char *signed_bytes, Py_ssize_t size) {
    size_t whole = field_size((size_t)size);
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)whole);
    if (out == NULL) return NULL;
    put_field(PyBytes_AS_STRING(out), (5 << 3) | WIRE_LEN, (const char *)signed_bytes, (size_t)size);
    return out;
}

static PyObject *index_tuple(const Py_ssize_t *indexes, Py_ssize_t count) {
    PyObject *out = PyTuple_New(count);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *value = PyLong_FromSsize_t(indexes[i]);
        if (value == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, value);
    }
    return out;
}

static PyObject *renumbered_pair(PyObject *module, const unsigned char *a, const unsigned char *a_end,
                                 PyObject *a_mapping, const unsigned char *b, const unsigned char *b_end,
                                 PyObject *b_mapping) {
    PyObject *args[2] = {PyBytes_FromStringAndSize((const char *)a, a_end - a), a_mapping};
    if (args[0] == NULL) return NULL;
    PyObject *first = renumbered_fields(module, args, 2);
    Py_DECREF(args[0]);
    if (first == NULL || first == Py_None) return first;
    args[0] = PyBytes_FromStringAndSize((const char *)b, b_end - b);
    args[1] = b_mapping;
    PyObject *second = args[0] == NULL ? NULL : renumbered_fields(module, args, 2);
    Py_XDECREF(args[0]);
    if (second == NULL || second == Py_None) {
        Py_DECREF(first);
        return second;
    }
    PyBytes_ConcatAndDel(&first, second);
    return first;
}

#define TRANSACTION_SLOTS 20

/* A new instance of a slots class (left to the cyclic garbage collector: its lazily parsed
 * messages are set later) with its object slots (offsets) taking values, references stolen; NULL
 * when a value is NULL or on error. */
static PyObject *new_stealing(PyTypeObject *cls, const Py_ssize_t *offsets, PyObject **values, int count) {
    PyObject *obj = NULL;
    for (int i = 0; i < count; i++)
        if (values[i] == NULL) goto done;
    obj = cls->tp_alloc(cls, 0);
    if (obj == NULL) goto done;
    for (int i = 0; i < count; i++) {
        *(PyObject **)((char *)obj + offsets[i]) = values[i];
        values[i] = NULL;
    }
done:
    for (int i = 0; i < count; i++) Py_XDECREF(values[i]);
    return obj;
}

/* block_transaction_groups(layout, items, source): each transaction of a native block's items as an
 * instance of formats.block_transactions.BlockTransaction, its messages left to be read from source
 * (the block's items parsed) when first asked for. layout is
 * (item class, its kind, data and payload start slots, data case names, atomic batch case, output
 * case names, result mapping, body mapping, transaction class, its slots in the order below), the
 * names tuples indexed by field number (None for a number that is no case). None where the Python
 * walk must decide: an atomic batch, a timestamp of another shape than the plain one, a field of an
 * unexpected wire type, bytes that do not parse. */
static PyObject *block_transaction_groups(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    PyObject *const *layout = nargs == 3 && PyTuple_CheckExact(args[0]) && PyTuple_GET_SIZE(args[0]) == 9
                                  ? &PyTuple_GET_ITEM(args[0], 0)
                                  : NULL;
    if (layout == NULL || !PyTuple_CheckExact(args[1]) ||
        !PyTuple_CheckExact(layout[2]) || !PyLong_Check(layout[3]) || !PyTuple_CheckExact(layout[4]) ||
        !PyBytes_CheckExact(layout[5]) || !PyBytes_CheckExact(layout[6])) {
        PyErr_SetString(PyExc_TypeError,
                        "block_transaction_groups((item class, slots, data case names, batch case, output case names, "
                        "result mapping, body mapping, transaction class, slots), items: tuple, source)");
        return NULL;
    }
    Py_ssize_t offsets[3], transaction_offsets[TRANSACTION_SLOTS];
    if (slot_offsets(layout[0], layout[1], offsets, 3) < 0 ||
        slot_offsets(layout[7], layout[8], transaction_offsets, TRANSACTION_SLOTS) < 0)
        return NULL;
    PyTypeObject *item_cls = (PyTypeObject *)layout[0], *transaction_cls = (PyTypeObject *)layout[7];
    PyObject *items = args[1];
    PyObject *data_cases = layout[2], *output_cases = layout[4];
    long batch_case = PyLong_AsLong(layout[3]);
    if (batch_case == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(items);
    PyObject *result = NULL, *out = NULL;
    int *kinds = PyMem_Malloc(sizeof(int) * (size_t)(count + 1));
    const unsigned char **payloads = PyMem_Malloc(sizeof(unsigned char *) * (size_t)(count + 1));
    Py_ssize_t *sizes = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(count + 1));
    Py_ssize_t *positions = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(count + 1));
    Grouped *found = PyMem_Malloc(sizeof(Grouped) * (size_t)(count + 1));
    if (!kinds || !payloads || !sizes || !positions || !found) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (Py_TYPE(item) != item_cls) goto irregular;
        PyObject *kind = *(PyObject **)((char *)item + offsets[0]);
        PyObject *data = *(PyObject **)((char *)item + offsets[1]);
        PyObject *start = *(PyObject **)((char *)item + offsets[2]);
        if (kind == NULL || data == NULL || start == NULL || !PyLong_CheckExact(kind) || !PyBytes_CheckExact(data) ||
            !PyLong_CheckExact(start))
            goto irregular;
        long k = PyLong_AsLong(kind);
        Py_ssize_t s = PyLong_AsSsize_t(start);
        if (PyErr_Occurred()) goto done;
        if (s < 0 || s > PyBytes_GET_SIZE(data) || k < 0 || k > 0x7FFFFFFF) goto irregular;
        kinds[i] = (int)k;
        payloads[i] = (const unsigned char *)PyBytes_AS_STRING(data) + s;
        sizes[i] = PyBytes_GET_SIZE(data) - s;
    }
    out = PyList_New(0);
    if (out == NULL) goto done;
    Walk w = {count, 0, kinds, payloads, sizes};
    Py_ssize_t found_count = 0;
    while (w.index < count) {
        Py_ssize_t before = w.index;
        Py_ssize_t signed_at;
        while ((signed_at = take(&w, ITEM_SIGNED_TRANSACTION)) >= 0) {
            const unsigned char *signed_bytes = payloads[signed_at], *signed_end = signed_bytes + sizes[signed_at];
            const unsigned char *body = NULL, *body_end = NULL;
            int legacy;
            long data_case;
            if (!signed_facts(signed_bytes, signed_end, data_cases, &body, &body_end, &legacy, &data_case) ||
                data_case == batch_case)
                goto irregular;
            Py_ssize_t result_at = take(&w, ITEM_TRANSACTION_RESULT);
            if (result_at < 0) continue;
            const unsigned char *r = payloads[result_at], *r_end = r + sizes[result_at];
            Grouped *t = &found[found_count];
            t->seconds = t->parent_seconds = 0;
            t->nanos = t->parent_nanos = 0;
            if (timestamp_field(r, r_end, 2, &t->seconds, &t->nanos) != 1) goto irregular;
            t->has_parent = timestamp_field(r, r_end, 3, &t->parent_seconds, &t->parent_nanos);
            if (t->has_parent < 0 || t->seconds > 9000000000LL || t->seconds < -9000000000LL ||
                t->parent_seconds > 9000000000LL || t->parent_seconds < -9000000000LL)
                goto irregular;
            int32_t status = 0;
            Field f;
            const unsigned char *q = r;
            while (q < r_end) {
                if (!next_field(&q, r_end, &f)) goto irregular;
                if (f.number == 1) {
                    if (f.wire_type != WIRE_VARINT) goto irregular;
                    status = (int32_t)(uint32_t)f.varint;
                }
            }
            Py_ssize_t position_count = 0, outputs = 0, traces = 0, changes = 0, at;
            positions[position_count++] = signed_at;
            positions[position_count++] = result_at;
            while ((at = take(&w, ITEM_TRANSACTION_OUTPUT)) >= 0) positions[position_count++] = at, outputs++;
            while ((at = take(&w, ITEM_TRACE_DATA)) >= 0) positions[position_count++] = at, traces++;
            while ((at = take(&w, ITEM_STATE_CHANGES)) >= 0) {
                int64_t seconds = 0;
                int32_t nanos = 0;
                if (timestamp_field(payloads[at], payloads[at] + sizes[at], 1, &seconds, &nanos) != 1) goto irregular;
                if (seconds != t->seconds || nanos != t->nanos) break; /* consumed, but of no transaction */
                positions[position_count++] = at;
                changes++;
            }
            PyObject *cases_of_outputs = PyTuple_New(outputs);
            if (cases_of_outputs == NULL) goto done;
            for (Py_ssize_t o = 0; o < outputs; o++) {
                Py_ssize_t p = positions[2 + o];
                PyObject *name = output_case(payloads[p], payloads[p] + sizes[p], output_cases);
                if (name == NULL) {
                    Py_DECREF(cases_of_outputs);
                    goto irregular;
                }
                PyTuple_SET_ITEM(cases_of_outputs, o, name);
            }
            t->parent = grouped_parent(found, found_count, t);
            PyObject *fields = renumbered_pair(module, r, r_end, layout[5], body, body_end, layout[6]);
            if (fields == NULL || fields == Py_None) {
                Py_DECREF(cases_of_outputs);
                Py_XDECREF(fields);
                if (fields == NULL) goto done;
                goto irregular;
            }
            PyObject *parent = t->parent < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(t->parent);
            PyObject *parent_ns = t->has_parent ? PyLong_FromLongLong(t->parent_seconds * 1000000000LL + t->parent_nanos)
                                                : Py_NewRef(Py_None);
            Py_ssize_t signed_size = signed_end - signed_bytes;
            PyObject *wrapped = legacy || signed_size == 0 ? Py_NewRef(Py_None) : transaction_wrapping(signed_bytes, signed_size);
            PyObject *case_object = data_case == 0 ? Py_None : case_name(data_cases, (uint64_t)data_case);
            PyObject *values[TRANSACTION_SLOTS] = {
                PyBytes_FromStringAndSize((const char *)signed_bytes, signed_size),
                wrapped,
                index_tuple(positions, position_count),
                Py_BuildValue("(nn)", outputs, traces),
                parent,
                PyLong_FromLongLong(t->seconds * 1000000000LL + t->nanos),
                parent_ns,
                PyLong_FromLong(status),
                Py_NewRef(case_object),
                PyBool_FromLong(legacy),
                fields,
                cases_of_outputs,
                Py_NewRef(Py_False),
                Py_NewRef(args[2]),
            };
            for (int v = 14; v < TRANSACTION_SLOTS; v++) values[v] = Py_NewRef(Py_None);
            PyObject *transaction = new_stealing(transaction_cls, transaction_offsets, values, TRANSACTION_SLOTS);
            if (transaction == NULL) goto done;
            int appended = PyList_Append(out, transaction);
            Py_DECREF(transaction);
            if (appended < 0) goto done;
            found_count++;
        }
        if (w.index == before) w.index++; /* an item that starts no transaction */
    }
    result = Py_NewRef(out);
    goto done;
irregular:
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(out);
    PyMem_Free(kinds);
    PyMem_Free(payloads);
    PyMem_Free(sizes);
    PyMem_Free(positions);
    PyMem_Free(found);
    return result;
}

/* ---- Poseidon (verify.tss.poseidon) ---------------------------------------------------------- */

/* The Poseidon permutation over the BN254 scalar field (the Montgomery arithmetic of the Baby-JubJub
 * section above), as verify.tss.poseidon.permute runs it: per round, the round's constants added, the
 * S-box x^5 on every element (full rounds: the first and last half of full_rounds) or on the first
 * (partial rounds), then the MDS matrix. A hinTS verification key hashes in nine permutations of
 * about 2,000 products each. */

#define POSEIDON_MAX_WIDTH 8

static void fe_fifth_power(Fe *a) {
    Fe square, fourth;
    fe_mul(&square, a, a);
    fe_mul(&fourth, &square, &square);
    fe_mul(a, &fourth, a);
}

/* poseidon_permute(state, round constants, mds, full rounds): state (width elements), the constants
 * (one row of width elements a round) and the MDS matrix (width rows), each element 32 bytes
 * little-endian below the modulus; the permuted state in the same encoding. */
static PyObject *poseidon_permute(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyBytes_CheckExact(args[0]) || !PyBytes_CheckExact(args[1]) || !PyBytes_CheckExact(args[2]) ||
        !PyLong_CheckExact(args[3])) {
        PyErr_SetString(PyExc_TypeError, "poseidon_permute(state: bytes, constants: bytes, mds: bytes, full_rounds: int)");
        return NULL;
    }
    Py_ssize_t state_size = PyBytes_GET_SIZE(args[0]), constants_size = PyBytes_GET_SIZE(args[1]);
    Py_ssize_t width = state_size / 32;
    long full_rounds = PyLong_AsLong(args[3]);
    if (full_rounds == -1 && PyErr_Occurred()) return NULL;
    if (width < 1 || width > POSEIDON_MAX_WIDTH || state_size != 32 * width || constants_size % (32 * width) != 0 ||
        PyBytes_GET_SIZE(args[2]) != 32 * width * width || full_rounds < 0 || full_rounds % 2 != 0 ||
        full_rounds > constants_size / (32 * width)) {
        PyErr_SetString(PyExc_ValueError, "poseidon_permute: sizes that do not fit one width");
        return NULL;
    }
    Py_ssize_t rounds = constants_size / (32 * width);
    const unsigned char *state_bytes = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    const unsigned char *constants = (const unsigned char *)PyBytes_AS_STRING(args[1]);
    const unsigned char *mds_bytes = (const unsigned char *)PyBytes_AS_STRING(args[2]);
    Fe state[POSEIDON_MAX_WIDTH], mds[POSEIDON_MAX_WIDTH * POSEIDON_MAX_WIDTH], next[POSEIDON_MAX_WIDTH];
    int valid = 1;
    for (Py_ssize_t i = 0; i < width; i++) valid &= fe_read_below_modulus(&state[i], state_bytes + 32 * i);
    for (Py_ssize_t i = 0; i < width * width; i++) valid &= fe_read_below_modulus(&mds[i], mds_bytes + 32 * i);
    if (!valid) goto not_below;
    Py_ssize_t half = full_rounds / 2;
    for (Py_ssize_t round = 0; round < rounds; round++) {
        for (Py_ssize_t i = 0; i < width; i++) {
            Fe constant;
            if (!fe_read_below_modulus(&constant, constants + 32 * (round * width + i))) goto not_below;
            fe_add(&state[i], &state[i], &constant);
        }
        int full = round < half || round >= rounds - half;
        for (Py_ssize_t i = 0; i < (full ? width : 1); i++) fe_fifth_power(&state[i]);
        for (Py_ssize_t row = 0; row < width; row++) {
            Fe sum = {{0, 0, 0, 0}}, product;
            for (Py_ssize_t column = 0; column < width; column++) {
                fe_mul(&product, &mds[row * width + column], &state[column]);
                fe_add(&sum, &sum, &product);
            }
            next[row] = sum;
        }
        memcpy(state, next, sizeof(Fe) * (size_t)width);
    }
    unsigned char out[32 * POSEIDON_MAX_WIDTH];
    for (Py_ssize_t i = 0; i < width; i++) fe_to_le(out + 32 * i, &state[i]);
    return PyBytes_FromStringAndSize((const char *)out, 32 * width);
not_below:
    PyErr_SetString(PyExc_ValueError, "poseidon_permute: an element is not below the modulus");
    return NULL;
}

/* ---- transaction_rows (store.rows) ----------------------------------------------------------- */

/* The layouts of store.keys and store.values for one transaction's rows: 16 lowercase hex digits; a
 * time's bucket (keys.time_bucket: its 2^27 ns span, Fibonacci-hashed, the top 4 bits); a system
 * account's bucket letter (keys.ACCOUNT_BUCKET_MARKS) for numbers 1 to keys.LAST_SYSTEM_ACCOUNT;
 * values enveloped raw (encoding.RAW), big-endian as values' structs pack them, FLAG_SCHEDULED.
 * tests/unit/store/test_transaction_rows.py checks them against the Python path. */
#define KEY_TIME_SPAN_BITS 27
#define KEY_FIBONACCI 0x9E3779B97F4A7C15ULL
#define KEY_LAST_SYSTEM_ACCOUNT 1000
#define VALUE_RAW 0x00
#define VALUE_FLAG_SCHEDULED 0x04
static const char KEY_HEX[] = "0123456789abcdef";
static const char KEY_BUCKET_MARKS[] = "ghijklmnopqrstuv";

static char *put_hex16(char *out, uint64_t value) {
    for (int i = 15; i >= 0; i--) {
        out[i] = KEY_HEX[value & 15];
        value >>= 4;
    }
    return out + 16;
}

static char *put_be(char *out, uint64_t value, int size) {
    for (int i = size - 1; i >= 0; i--) {
        out[i] = (char)(value & 0xFF);
        value >>= 8;
    }
    return out + size;
}

/* ``<shard>.<realm>.<num>/`` (keys.account_prefix) into out (room for 64 bytes); NULL for a
 * negative shard or realm, which keys.check_entity_id refuses (the Python path then raises). */
static char *put_decimal(char *out, int64_t value) {
    char digits[20];
    int count = 0;
    uint64_t magnitude = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
    if (value < 0) *out++ = '-';
    do {
        digits[count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude > 0);
    while (count > 0) *out++ = digits[--count];
    return out;
}

static char *put_entity_prefix(char *out, const int64_t *ids) {
    if (ids[0] < 0 || ids[1] < 0) return NULL;
    out = put_decimal(out, ids[0]);
    *out++ = '.';
    out = put_decimal(out, ids[1]);
    *out++ = '.';
    out = put_decimal(out, ids[2]);
    *out++ = '/';
    return out;
}

/* Reads a (shard, realm, num) tuple of ints; 0 with TypeError (or OverflowError) otherwise. */
static int read_entity_tuple(PyObject *tuple, int64_t *ids) {
    if (!PyTuple_CheckExact(tuple) || PyTuple_GET_SIZE(tuple) != 3) {
        PyErr_SetString(PyExc_TypeError, "transaction_rows: expected (shard, realm, num) tuples");
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        ids[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
        if (ids[i] == -1 && PyErr_Occurred()) return 0;
    }
    return 1;
}

/* Whether a SignatureMap's bytes parse as the message does (its sigPair = 1 elements: SignaturePair,
 * whose fields are all bytes): every field well formed, of a number below 2^29, no group. */
static int plain_fields(const unsigned char *p, const unsigned char *end, uint64_t nested) {
    Field f;
    while (p < end) {
        if (!next_field(&p, end, &f) || f.number > 536870911) return 0;
        if (nested && f.number == nested && f.wire_type == WIRE_LEN && !plain_fields(f.start, f.stop, 0)) return 0;
    }
    return 1;
}

#define BODY_BYTES 1
#define BODY_DEPRECATED 2

/* Where the body of a serialised Transaction is, as formats.transactions.transaction_body finds it:
 * BODY_BYTES with [*body, *body_end) the bytes of signedTransactionBytes (5, a SignedTransaction)'s
 * bodyBytes = 1 (empty when absent), else of bodyBytes (4), each bytes field's last occurrence
 * winning; BODY_DEPRECATED when neither holds bytes (the deprecated body = 1 is the body); 0 when
 * malformed. ``plain`` asks the two layers to parse exactly as the messages do: field numbers below
 * 2^29, no deprecated body or SignatureList (2), each SignatureMap (3 of the Transaction, 2 of the
 * SignedTransaction) well formed to its pairs' fields (0 otherwise). */
static int body_span(const unsigned char *p, const unsigned char *end, int plain, const unsigned char **body,
                     const unsigned char **body_end) {
    const unsigned char *signed_bytes = NULL, *signed_end = NULL;
    uint64_t limit = plain ? 536870911 : UINT64_MAX;
    Field f;
    *body = *body_end = NULL;
    while (p < end) {
        if (!next_field(&p, end, &f) || f.number > limit) return 0;
        if (f.wire_type != WIRE_LEN) continue;
        if (plain && (f.number == 1 || f.number == 2 || (f.number == 3 && !plain_fields(f.start, f.stop, 1)))) return 0;
        if (f.number == 4) {
            *body = f.start;
            *body_end = f.stop;
        } else if (f.number == 5) {
            signed_bytes = f.start;
            signed_end = f.stop;
        }
    }
    if (signed_bytes != NULL && signed_bytes < signed_end) {
        *body = *body_end = signed_bytes; /* an empty body unless bodyBytes is there */
        for (p = signed_bytes; p < signed_end;) {
            if (!next_field(&p, signed_end, &f) || f.number > limit) return 0;
            if (f.wire_type != WIRE_LEN) continue;
            if (f.number == 1) {
                *body = f.start;
                *body_end = f.stop;
            } else if (plain && f.number == 2 && !plain_fields(f.start, f.stop, 1)) {
                return 0;
            }
        }
        return BODY_BYTES;
    }
    return *body != NULL && *body < *body_end ? BODY_BYTES : BODY_DEPRECATED;
}

/* The payer (transactionID = 1, accountID = 2) of the body a serialised Transaction carries (its
 * occurrences merged; the deprecated body's occurrences merged too); 0 when malformed. */
static int body_payer(const unsigned char *p, const unsigned char *end, int64_t *payer) {
    const unsigned char *body, *body_end;
    int found = body_span(p, end, 0, &body, &body_end);
    if (found == BODY_BYTES) {
        p = body;
        end = body_end;
    } else if (found != BODY_DEPRECATED) {
        return 0;
    }
    Field f, g;
    while (p < end) { /* the body's transactionID, or the deprecated body's (each occurrence's) */
        if (!next_field(&p, end, &f)) return 0;
        if (f.number != 1 || f.wire_type != WIRE_LEN) continue;
        if (found == BODY_BYTES) {
            if (!merge_inner_id(f.start, f.stop, 2, payer)) return 0;
            continue;
        }
        for (const unsigned char *q = f.start; q < f.stop;) {
            if (!next_field(&q, f.stop, &g)) return 0;
            if (g.number == 1 && g.wire_type == WIRE_LEN && !merge_inner_id(g.start, g.stop, 2, payer)) return 0;
        }
    }
    return 1;
}
/* The cells of a row of ``table`` (a dict key -> {(family, qualifier): value}), made when new. */
static PyObject *row_of(PyObject *table, PyObject *key) {
    PyObject *cells = PyDict_GetItemWithError(table, key);
    if (cells != NULL || PyErr_Occurred()) return cells;
    cells = PyDict_New();
    if (cells == NULL) return NULL;
    int failed = PyDict_SetItem(table, key, cells);
    Py_DECREF(cells);
    return failed < 0 ? NULL : cells;
}

/* Puts value at (family, qualifier) of the row key of table; steals key and value; -1 on error. */
static int put_row_cell(PyObject *table, PyObject *key, PyObject *family_qualifier, PyObject *value) {
    int failed = -1;
    if (key != NULL && value != NULL) {
        PyObject *cells = row_of(table, key);
        if (cells != NULL) failed = PyDict_SetItem(cells, family_qualifier, value);
    }
    Py_XDECREF(key);
    Py_XDECREF(value);
    return failed;
}

static PyObject *bytes_of(const char *start, const char *stop) { return PyBytes_FromStringAndSize(start, stop - start); }

/* transaction_rows(record, transaction, consensus_ns, entities, tables, cells, place): one
 * transaction's rows as store.rows builds them, from its record's bytes (and, unless None, the
 * payer of the body its transaction's bytes carry): its ``transactions`` position, ``tx_by_hash``
 * and ``tx_by_id`` entries and ``account_history`` pointers (the entities the record names, the
 * payer and ``entities``, the body's others), put into ``tables`` (the row set's dicts: transactions,
 * tx_by_hash, tx_by_id, account_history), under the (family, qualifier) pairs ``cells`` names
 * (position, part, hash entry's family, id entry's family) and ``place`` (block number, index, cell,
 * offset, flags, cell suffix, part mark or None). Returns (pointer, status, record has a
 * transaction id, index fields: store.rows.record_index_fields); None, nothing put, where the Python path
 * must decide (bytes that do not parse, a value the layouts do not fit, an entity id the keys
 * refuse). */
static PyObject *transaction_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 7 || !PyLong_CheckExact(args[2]) || !PyList_CheckExact(args[3]) || !PyTuple_CheckExact(args[4]) ||
        PyTuple_GET_SIZE(args[4]) != 4 || !PyTuple_CheckExact(args[5]) || PyTuple_GET_SIZE(args[5]) != 4 ||
        !PyTuple_CheckExact(args[6]) || PyTuple_GET_SIZE(args[6]) != 7 ||
        !PyBytes_CheckExact(PyTuple_GET_ITEM(args[6], 5))) {
        PyErr_SetString(PyExc_TypeError, "transaction_rows(record, transaction, consensus_ns, entities: list, "
                                         "tables: 4 dicts, cells: 4 keys, place: 7 values)");
        return NULL;
    }
    PyObject *given = args[3], *tables = args[4], *cells = args[5], *place = args[6];
    for (int i = 0; i < 4; i++) {
        if (!PyDict_CheckExact(PyTuple_GET_ITEM(tables, i))) {
            PyErr_SetString(PyExc_TypeError, "transaction_rows: expected 4 dicts");
            return NULL;
        }
    }
    PyObject *transactions = PyTuple_GET_ITEM(tables, 0), *by_hash = PyTuple_GET_ITEM(tables, 1);
    PyObject *by_id = PyTuple_GET_ITEM(tables, 2), *history = PyTuple_GET_ITEM(tables, 3);
    PyObject *suffix = PyTuple_GET_ITEM(place, 5), *part = PyTuple_GET_ITEM(place, 6);
    uint64_t consensus = PyLong_AsUnsignedLongLong(args[2]), numbers[5];
    const uint64_t limits[5] = {UINT64_MAX, UINT32_MAX, UINT16_MAX, UINT16_MAX, UINT8_MAX};
    int fits = !(consensus == (uint64_t)-1 && PyErr_Occurred());
    for (int i = 0; i < 5 && fits; i++) { /* block number, index, cell, offset, flags */
        numbers[i] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(place, i));
        fits = !(numbers[i] == (uint64_t)-1 && PyErr_Occurred()) && numbers[i] <= limits[i];
    }
    if (!fits) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_OverflowError) && !PyErr_ExceptionMatches(PyExc_TypeError))
            return NULL;
        PyErr_Clear();
        Py_RETURN_NONE; /* the Python path raises as values' structs do */
    }
    uint64_t block_number = numbers[0], cell = numbers[2], offset = numbers[3], flags = numbers[4];

    Py_buffer view, transaction_view = {0};
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    if (args[1] != Py_None && PyObject_GetBuffer(args[1], &transaction_view, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const unsigned char *p = view.buf, *end = p + view.len;
    PyObject *result = NULL;
    RecordSummary s;
    EntityList entities;
    entity_list_init(&entities);
    int64_t payer[3] = {0, 0, 0}, ids[3];
    int read = record_entity_list(p, end, &entities);
    if (read < 0) goto done;
    if (read == 0 || !read_record_summary(p, end, &s)) goto irregular;
    if (transaction_view.buf != NULL) {
        const unsigned char *t = transaction_view.buf;
        if (!body_payer(t, t + transaction_view.len, payer)) goto irregular;
        if (append_positive(&entities, payer) < 0) goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(given); i++)
        if (!read_entity_tuple(PyList_GET_ITEM(given, i), ids) || append_positive(&entities, ids) < 0) goto done;
    for (Py_ssize_t i = 0; i < entities.count; i++)
        if (entities.ids[i][0] < 0 || entities.ids[i][1] < 0) goto irregular;
    __int128 valid_start = (__int128)s.seconds * 1000000000 + s.nanos;
    int has_id_key = s.has_id && s.payer[2] > 0 && valid_start >= 0 && valid_start <= (__int128)UINT64_MAX;
    if (has_id_key && (s.payer[0] < 0 || s.payer[1] < 0)) goto irregular;

    /* Everything fits: the rows. */
    unsigned bucket = (unsigned)(((consensus >> KEY_TIME_SPAN_BITS) * KEY_FIBONACCI) >> 60);
    char key[96], value[32], inverted[16], *at;
    key[0] = KEY_HEX[bucket];
    key[1] = '/';
    put_hex16(key + 2, consensus);
    PyObject *transaction_key = PyBytes_FromStringAndSize(key, 18);
    PyObject *qualifier = PyBytes_FromStringAndSize(key + 2, 16);
    PyObject *family_qualifier = NULL;
    if (transaction_key == NULL || qualifier == NULL) goto fail;
    PyObject *row = row_of(transactions, transaction_key);
    if (row == NULL) goto fail;
    value[0] = VALUE_RAW;
    at = put_be(put_be(value + 1, block_number, 8), numbers[1], 4);
    PyObject *position = PyBytes_FromStringAndSize(NULL, (at - value) + PyBytes_GET_SIZE(suffix));
    if (position == NULL) goto fail;
    memcpy(PyBytes_AS_STRING(position), value, at - value);
    memcpy(PyBytes_AS_STRING(position) + (at - value), PyBytes_AS_STRING(suffix), PyBytes_GET_SIZE(suffix));
    int failed = PyDict_SetItem(row, PyTuple_GET_ITEM(cells, 0), position);
    Py_DECREF(position);
    if (failed < 0 || (part != Py_None && PyDict_SetItem(row, PyTuple_GET_ITEM(cells, 1), part) < 0)) goto fail;

    if (s.hash_size > 0) {
        Py_ssize_t size = s.hash_size < 16 ? s.hash_size : 16;
        for (Py_ssize_t i = 0; i < size; i++) {
            key[2 * i] = KEY_HEX[s.hash[i] >> 4];
            key[2 * i + 1] = KEY_HEX[s.hash[i] & 15];
        }
        at = put_be(put_be(put_be(put_be(value + 1, block_number, 8), cell, 2), offset, 2), flags, 1);
        at = put_be(at, (uint32_t)s.status, 4);
        family_qualifier = PyTuple_Pack(2, PyTuple_GET_ITEM(cells, 2), qualifier);
        if (family_qualifier == NULL ||
            put_row_cell(by_hash, bytes_of(key, key + 2 * size), family_qualifier, bytes_of(value, at)) < 0)
            goto fail;
        Py_CLEAR(family_qualifier);
    }
    if (has_id_key) {
        at = put_hex16(put_entity_prefix(key, s.payer), (uint64_t)valid_start);
        char *v = put_be(put_be(put_be(value + 1, block_number, 8), cell, 2), offset, 2);
        v = put_be(v, (uint32_t)s.nonce, 4);
        v = put_be(put_be(v, s.scheduled ? flags | VALUE_FLAG_SCHEDULED : flags, 1), (uint32_t)s.status, 4);
        family_qualifier = PyTuple_Pack(2, PyTuple_GET_ITEM(cells, 3), qualifier);
        if (family_qualifier == NULL || put_row_cell(by_id, bytes_of(key, at), family_qualifier, bytes_of(value, v)) < 0)
            goto fail;
        Py_CLEAR(family_qualifier);
    }

    at = put_be(put_be(put_be(put_be(value + 1, block_number, 8), cell, 2), offset, 2), flags, 1);
    PyObject *pointer = bytes_of(value, at);
    if (pointer == NULL) goto fail;
    put_hex16(inverted, ~consensus);
    for (Py_ssize_t i = 0; i < entities.count; i++) {
        at = put_entity_prefix(key, entities.ids[i]);
        if (entities.ids[i][2] <= KEY_LAST_SYSTEM_ACCOUNT) *at++ = KEY_BUCKET_MARKS[bucket];
        memcpy(at, inverted, 16);
        PyObject *history_key = bytes_of(key, at + 16);
        if (history_key == NULL || PyDict_SetItem(history, history_key, pointer) < 0) {
            Py_XDECREF(history_key);
            Py_DECREF(pointer);
            goto fail;
        }
        Py_DECREF(history_key);
    }
    result = Py_BuildValue("(NiOi)", pointer, (int)s.status, s.has_id ? Py_True : Py_False, s.index_fields);
fail:
    Py_XDECREF(transaction_key);
    Py_XDECREF(qualifier);
    Py_XDECREF(family_qualifier);
    goto done;
irregular:
    result = Py_NewRef(Py_None);
done:
    entity_list_free(&entities);
    PyBuffer_Release(&view);
    if (transaction_view.buf != NULL) PyBuffer_Release(&transaction_view);
    return result;
}


/* transaction_body_bytes(transaction): the serialised body a Transaction of the common shape carries
 * (signedTransactionBytes = 5, a SignedTransaction, then its bodyBytes = 1; else bodyBytes = 4), read
 * where the two layers parse exactly as the messages do: fields well formed, numbers below 2^29, no
 * group, each SignatureMap (3 of the Transaction, 2 of the SignedTransaction) well formed to its
 * pairs' fields. None for anything else (the deprecated body = 1, a SignatureList = 2, no body
 * bytes, bytes that do not parse): formats.transactions.transaction_body decides. */
static PyObject *transaction_body_bytes(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *p = view.buf, *body, *body_end;
    PyObject *result = body_span(p, p + view.len, 1, &body, &body_end) == BODY_BYTES
                           ? PyBytes_FromStringAndSize((const char *)body, body_end - body)
                           : Py_NewRef(Py_None);
    PyBuffer_Release(&view);
    return result;
}

/* record_result_member(record): which member of a TransactionRecord's body oneof its bytes hold:
 * contractCallResult (7), contractCreateResult (8), the later one given, else 0; None when the
 * bytes are malformed (the parser decides). */
static PyObject *record_result_member(PyObject *module, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const unsigned char *p = view.buf, *end = p + view.len;
    long member = 0;
    Field f;
    while (p < end) {
        if (!next_field(&p, end, &f)) {
            PyBuffer_Release(&view);
            Py_RETURN_NONE;
        }
        if (f.wire_type == WIRE_LEN && (f.number == 7 || f.number == 8)) member = (long)f.number;
    }
    PyBuffer_Release(&view);
    return PyLong_FromLong(member);
}

/* ---- module ---------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"v6_item_lists", v6_item_lists, METH_O,
     "Transactions, records and consensus times (ns) of decompressed V6 content, or None."},
    {"record_items", (PyCFunction)(void (*)(void))record_items, METH_FASTCALL,
     "Instances of a slots class from three columns (bytes, bytes, int), left out of the cyclic GC."},
    {"mutation_entries", mutation_entries, METH_O, "The MutateRows entries field of each row, or None."},
    {"mutation_runs", mutation_runs, METH_O,
     "Runs of rows of one table, encoded: (table, stop, entries, int64 ends, int64 running cells), or None."},
    {"mutate_rows_answer", mutate_rows_answer, METH_O,
     "A MutateRowsResponse's entry count and its failed entries (index, code, message), or None."},
    {"renumbered_fields", (PyCFunction)(void (*)(void))renumbered_fields, METH_FASTCALL,
     "The fields of a message a mapping names, each under its new number, or None."},
    {"block_items", (PyCFunction)(void (*)(void))block_items, METH_FASTCALL,
     "Block items of the common shape from their bytes (instances of a slots class), None for others."},
    {"transaction_rows", (PyCFunction)(void (*)(void))transaction_rows, METH_FASTCALL,
     "One transaction's position, hash and id entries and account history pointers put into its row set, or None."},
    {"transaction_body_bytes", transaction_body_bytes, METH_O,
     "The body's bytes a Transaction of the common shape carries, or None."},
    {"record_result_member", record_result_member, METH_O,
     "Which contract result (7, 8) a TransactionRecord's bytes hold, 0 for none, or None."},
    {"block_transaction_groups", (PyCFunction)(void (*)(void))block_transaction_groups, METH_FASTCALL,
     "A native block's items grouped into transactions, read from their wire bytes, or None."},
    {"table_rows", (PyCFunction)(void (*)(void))table_rows, METH_FASTCALL,
     "Rows of one table in key order, cells in (family, qualifier) order, appended to a list, left out of the cyclic GC."},
    {"sha384_lanes", sha384_lanes, METH_NOARGS, "How many SHA-384 digests run side by side here (8 or 1)."},
    {"block_subtree_roots", (PyCFunction)(void (*)(void))block_subtree_roots, METH_FASTCALL,
     "The SHA-384 streaming-tree roots of a block's item subtrees and the items hashed, or None."},
    {"babyjubjub_multiply", (PyCFunction)(void (*)(void))babyjubjub_multiply, METH_FASTCALL,
     "A point of ed_on_bn254 (x ‖ y, little-endian) times a 32-byte little-endian scalar, or None."},
    {"poseidon_permute", (PyCFunction)(void (*)(void))poseidon_permute, METH_FASTCALL,
     "The Poseidon permutation (x^5) of a state over the BN254 scalar field, elements 32 bytes little-endian."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) {
    str_table = PyUnicode_InternFromString("table");
    str_key = PyUnicode_InternFromString("key");
    str_cells = PyUnicode_InternFromString("cells");
    str_family = PyUnicode_InternFromString("family");
    str_qualifier = PyUnicode_InternFromString("qualifier");
    str_value = PyUnicode_InternFromString("value");
    str_timestamp_micros = PyUnicode_InternFromString("timestamp_micros");
    if (!str_table || !str_key || !str_cells || !str_family || !str_qualifier || !str_value || !str_timestamp_micros) return NULL;
    return PyModule_Create(&module_def);
}
