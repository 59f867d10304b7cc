#include "container/torchpickle.h"

#include "base/error.h"
#include "base/intmath.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <unordered_map>

namespace qs {

namespace {

// MARKs open at once (torch.save opens 3), containers nested on a tensor's path (a state dict: 1),
// and objects made (a state dict's tensor takes about 20).
constexpr size_t kMaxOpenMarks = 256;
constexpr size_t kMaxNesting = 64;
constexpr size_t kMaxObjects = size_t(1) << 22;
// A GLOBAL's module or name line.
constexpr size_t kMaxGlobalLine = 256;

std::string hexByte(uint8_t b)
{
    static constexpr char digits[] = "0123456789abcdef";
    return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

// Every opcode of pickle protocols 0-5, for the message that refuses one.
std::string_view opcodeName(uint8_t op)
{
    switch (op) {
    case '(': return "MARK";
    case '.': return "STOP";
    case '0': return "POP";
    case '1': return "POP_MARK";
    case '2': return "DUP";
    case 'F': return "FLOAT";
    case 'I': return "INT";
    case 'J': return "BININT";
    case 'K': return "BININT1";
    case 'L': return "LONG";
    case 'M': return "BININT2";
    case 'N': return "NONE";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 'R': return "REDUCE";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'X': return "BINUNICODE";
    case 'a': return "APPEND";
    case 'b': return "BUILD";
    case 'c': return "GLOBAL";
    case 'd': return "DICT";
    case '}': return "EMPTY_DICT";
    case 'e': return "APPENDS";
    case 'g': return "GET";
    case 'h': return "BINGET";
    case 'i': return "INST";
    case 'j': return "LONG_BINGET";
    case 'l': return "LIST";
    case ']': return "EMPTY_LIST";
    case 'o': return "OBJ";
    case 'p': return "PUT";
    case 'q': return "BINPUT";
    case 'r': return "LONG_BINPUT";
    case 's': return "SETITEM";
    case 't': return "TUPLE";
    case ')': return "EMPTY_TUPLE";
    case 'u': return "SETITEMS";
    case 'G': return "BINFLOAT";
    case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";
    case 0x80: return "PROTO";
    case 0x81: return "NEWOBJ";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x85: return "TUPLE1";
    case 0x86: return "TUPLE2";
    case 0x87: return "TUPLE3";
    case 0x88: return "NEWTRUE";
    case 0x89: return "NEWFALSE";
    case 0x8a: return "LONG1";
    case 0x8b: return "LONG4";
    case 0x8c: return "SHORT_BINUNICODE";
    case 0x8d: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x92: return "NEWOBJ_EX";
    case 0x93: return "STACK_GLOBAL";
    case 0x94: return "MEMOIZE";
    case 0x95: return "FRAME";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return {};
    }
}

enum class Kind : uint8_t { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Storage, Tensor };

std::string_view kindName(Kind k)
{
    static constexpr std::array<std::string_view, 11> names{"None", "bool", "int",    "float",   "str",   "tuple",
                                                            "list", "dict", "global", "storage", "tensor"};
    return names[size_t(k)];
}

enum class Callable : uint8_t { OrderedDict, RebuildV2, RebuildV3, RebuildParameter, StorageClass, Dtype };

struct GlobalRow {
    std::string_view module, name;
    Callable callable;
    DType dtype = DType::U8;
};

// The allow-list: what torch.save (1.6 to 2.x) writes for a state dict of tensors.
// clang-format off: one global a line
constexpr std::array kAllowedGlobals{
    GlobalRow{"collections", "OrderedDict", Callable::OrderedDict},
    GlobalRow{"torch._utils", "_rebuild_tensor_v2", Callable::RebuildV2},
    GlobalRow{"torch._utils", "_rebuild_tensor_v3", Callable::RebuildV3},
    GlobalRow{"torch._utils", "_rebuild_parameter", Callable::RebuildParameter},
    GlobalRow{"torch", "DoubleStorage", Callable::StorageClass, DType::F64},
    GlobalRow{"torch", "FloatStorage", Callable::StorageClass, DType::F32},
    GlobalRow{"torch", "HalfStorage", Callable::StorageClass, DType::F16},
    GlobalRow{"torch", "BFloat16Storage", Callable::StorageClass, DType::BF16},
    GlobalRow{"torch", "LongStorage", Callable::StorageClass, DType::I64},
    GlobalRow{"torch", "IntStorage", Callable::StorageClass, DType::I32},
    GlobalRow{"torch", "ShortStorage", Callable::StorageClass, DType::I16},
    GlobalRow{"torch", "CharStorage", Callable::StorageClass, DType::I8},
    GlobalRow{"torch", "ByteStorage", Callable::StorageClass, DType::U8},
    GlobalRow{"torch", "BoolStorage", Callable::StorageClass, DType::BOOL},
    GlobalRow{"torch", "ComplexFloatStorage", Callable::StorageClass, DType::C64},
    GlobalRow{"torch", "UntypedStorage", Callable::StorageClass, DType::U8},
    GlobalRow{"torch.storage", "UntypedStorage", Callable::StorageClass, DType::U8},
    GlobalRow{"torch", "float64", Callable::Dtype, DType::F64},
    GlobalRow{"torch", "float32", Callable::Dtype, DType::F32},
    GlobalRow{"torch", "float16", Callable::Dtype, DType::F16},
    GlobalRow{"torch", "bfloat16", Callable::Dtype, DType::BF16},
    GlobalRow{"torch", "int64", Callable::Dtype, DType::I64},
    GlobalRow{"torch", "int32", Callable::Dtype, DType::I32},
    GlobalRow{"torch", "int16", Callable::Dtype, DType::I16},
    GlobalRow{"torch", "int8", Callable::Dtype, DType::I8},
    GlobalRow{"torch", "uint64", Callable::Dtype, DType::U64},
    GlobalRow{"torch", "uint32", Callable::Dtype, DType::U32},
    GlobalRow{"torch", "uint16", Callable::Dtype, DType::U16},
    GlobalRow{"torch", "uint8", Callable::Dtype, DType::U8},
    GlobalRow{"torch", "bool", Callable::Dtype, DType::BOOL},
    GlobalRow{"torch", "complex64", Callable::Dtype, DType::C64},
    GlobalRow{"torch", "float8_e4m3fn", Callable::Dtype, DType::F8_E4M3},
    GlobalRow{"torch", "float8_e5m2", Callable::Dtype, DType::F8_E5M2},
    GlobalRow{"torch", "float8_e4m3fnuz", Callable::Dtype, DType::F8_E4M3FNUZ},
    GlobalRow{"torch", "float8_e5m2fnuz", Callable::Dtype, DType::F8_E5M2FNUZ},
    GlobalRow{"torch", "float8_e8m0fnu", Callable::Dtype, DType::F8_E8M0},
};
// clang-format on

// One value on the stack or in the memo, 16 bytes: a = a String's offset in the pickle, a
// Tuple's first item, a List's or Dict's container, a Storage's or Tensor's index, a Global's row;
// b = an Int's value, a Float's bits, a Bool, a String's length, a Tuple's item count.
struct Object {
    Kind kind = Kind::None;
    uint32_t a = 0;
    uint64_t b = 0;
};

class Unpickler {
public:
    Unpickler(std::span<const uint8_t> pickle, const std::string& file)
        : m_p(pickle)
        , m_file(file)
    {
    }

    TorchPickle run()
    {
        if (m_p.size() > kTorchPickleMax)
            fail(m_file,
                 "data.pkl is " + std::to_string(m_p.size()) + " bytes, more than the "
                     + std::to_string(kTorchPickleMax) + " this reader takes");
        const uint32_t root = parse();
        walk(root);
        return std::move(m_out);
    }

private:
    [[noreturn]] void refuse(const std::string& what) const
    {
        fail(m_file, "data.pkl byte " + std::to_string(m_opAt) + ": " + what);
    }

    void need(uint64_t n) const
    {
        if (n > m_p.size() - m_pos)
            refuse(std::string(opcodeName(m_op)) + " needs " + std::to_string(n) + " bytes, but the pickle ends after "
                   + std::to_string(m_p.size() - m_pos) + " (truncated)");
    }
    uint64_t readLe(size_t n)
    {
        need(n);
        uint64_t v = 0;
        for (size_t i = 0; i < n; ++i)
            v |= uint64_t(m_p[m_pos + i]) << (8 * i);
        m_pos += n;
        return v;
    }

    uint32_t make(Kind kind, uint32_t a = 0, uint64_t b = 0)
    {
        if (m_objects.size() >= kMaxObjects)
            refuse("more than " + std::to_string(kMaxObjects) + " objects; no state dict needs that many");
        m_objects.push_back({kind, a, b});
        return uint32_t(m_objects.size() - 1);
    }
    void push(uint32_t object) { m_stack.push_back(object); }
    uint32_t pop()
    {
        if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
            refuse(std::string(opcodeName(m_op)) + " takes a value from an empty stack");
        const uint32_t top = m_stack.back();
        m_stack.pop_back();
        return top;
    }
    // The values pushed since the last MARK, which is closed.
    size_t popMark()
    {
        if (m_marks.empty())
            refuse(std::string(opcodeName(m_op)) + " without a MARK");
        const size_t from = m_marks.back();
        m_marks.pop_back();
        return from;
    }
    const Object& at(uint32_t i) const { return m_objects[i]; }
    std::string_view text(const Object& o) const
    {
        return {reinterpret_cast<const char*>(m_p.data()) + o.a, size_t(o.b)};
    }
    int64_t intValue(const Object& o) const { return int64_t(o.b); }

    uint32_t tuple(size_t from)
    {
        const uint32_t first = uint32_t(m_items.size());
        m_items.insert(m_items.end(), m_stack.begin() + std::ptrdiff_t(from), m_stack.end());
        const size_t count = m_stack.size() - from;
        m_stack.resize(from);
        return make(Kind::Tuple, first, count);
    }
    std::span<const uint32_t> tupleItems(const Object& o) const
    {
        return std::span<const uint32_t>(m_items).subspan(o.a, size_t(o.b));
    }

    void string(uint64_t length)
    {
        need(length);
        push(make(Kind::String, uint32_t(m_pos), length));
        m_pos += size_t(length);
    }

    void global(std::string_view module, std::string_view name)
    {
        for (size_t r = 0; r < kAllowedGlobals.size(); ++r)
            if (kAllowedGlobals[r].module == module && kAllowedGlobals[r].name == name) {
                push(make(Kind::Global, uint32_t(r)));
                return;
            }
        refuse("global '" + std::string(module) + "." + std::string(name)
               + "' is not one torch.save writes for tensors, storages or dicts; refused, nothing was executed");
    }
    std::string_view globalLine()
    {
        const size_t limit = std::min(m_p.size() - m_pos, kMaxGlobalLine + 1);
        const uint8_t* start = m_p.data() + m_pos;
        const void* nl = std::memchr(start, '\n', limit);
        if (!nl)
            refuse("GLOBAL's module or name has no end of line within " + std::to_string(kMaxGlobalLine) + " bytes");
        const size_t n = size_t(static_cast<const uint8_t*>(nl) - start);
        m_pos += n + 1;
        return {reinterpret_cast<const char*>(start), n};
    }

    void memoPut(uint64_t index)
    {
        if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
            refuse(std::string(opcodeName(m_op)) + " on an empty stack");
        m_memo[uint32_t(index)] = m_stack.back();
    }
    void memoGet(uint64_t index)
    {
        const auto it = m_memo.find(uint32_t(index));
        if (it == m_memo.end())
            refuse(std::string(opcodeName(m_op)) + " of memo entry " + std::to_string(index) + ", which was never put");
        push(it->second);
    }

    // A container's items, as SETITEMS or APPENDS add them to the object below the MARK.
    std::vector<uint32_t>& containerBelow(size_t from, Kind kind)
    {
        if (from <= (m_marks.empty() ? 0 : m_marks.back()))
            refuse(std::string(opcodeName(m_op)) + " has no " + std::string(kindName(kind)) + " below its MARK");
        const Object& target = at(m_stack[from - 1]);
        if (target.kind != kind)
            refuse(std::string(opcodeName(m_op)) + " adds to a " + std::string(kindName(target.kind)) + ", not a "
                   + std::string(kindName(kind)));
        return m_containers[target.a];
    }
    uint32_t newContainer(Kind kind)
    {
        m_containers.emplace_back();
        return make(kind, uint32_t(m_containers.size() - 1));
    }

    uint64_t nonNegative(uint32_t object, const char* what) const
    {
        const Object& o = at(object);
        if (o.kind != Kind::Int)
            refuse(std::string(what) + " is a " + std::string(kindName(o.kind)) + ", not an int");
        if (intValue(o) < 0)
            refuse(std::string(what) + " is " + std::to_string(intValue(o)) + ", below 0");
        return o.b;
    }
    Shape ints(uint32_t object, const char* what) const
    {
        const Object& o = at(object);
        if (o.kind != Kind::Tuple)
            refuse(std::string(what) + " is a " + std::string(kindName(o.kind)) + ", not a tuple");
        Shape out;
        for (uint32_t item : tupleItems(o))
            out.push_back(nonNegative(item, what));
        return out;
    }
    std::string keyText(uint32_t object, const char* what) const
    {
        const Object& o = at(object);
        if (o.kind == Kind::String)
            return std::string(text(o));
        if (o.kind == Kind::Int)
            return std::to_string(intValue(o));
        refuse(std::string(what) + " is a " + std::string(kindName(o.kind)) + ", not a str or an int");
    }

    // ('storage', <storage class>, key, location, numel)
    uint32_t persistentStorage(uint32_t id)
    {
        const Object& o = at(id);
        if (o.kind != Kind::Tuple || o.b != 5)
            refuse("a persistent id is not the 5-tuple ('storage', class, key, location, numel) torch.save writes");
        const auto items = tupleItems(o);
        const Object& tag = at(items[0]);
        if (tag.kind != Kind::String || text(tag) != "storage")
            refuse("a persistent id does not start with 'storage'");
        const Object& cls = at(items[1]);
        if (cls.kind != Kind::Global || kAllowedGlobals[cls.a].callable != Callable::StorageClass)
            refuse("a persistent id's storage class is a " + std::string(kindName(cls.kind)) + ", not a storage class");
        TorchStorage s;
        s.key = keyText(items[2], "a storage key");
        const Object& location = at(items[3]);
        if (location.kind != Kind::String)
            refuse("storage '" + s.key + "': its location is a " + std::string(kindName(location.kind))
                   + ", not a str");
        s.location = text(location);
        s.dtype = kAllowedGlobals[cls.a].dtype;
        s.typeName = kAllowedGlobals[cls.a].name;
        s.numel = nonNegative(items[4], "a storage's element count");
        const auto [it, fresh] = m_storageByKey.emplace(s.key, m_out.storages.size());
        if (fresh) {
            m_out.storages.push_back(std::move(s));
        } else {
            const TorchStorage& first = m_out.storages[it->second];
            if (first.typeName != s.typeName || first.numel != s.numel)
                refuse("storage '" + s.key + "' is named twice, as " + first.typeName + " of "
                       + std::to_string(first.numel) + " and as " + s.typeName + " of " + std::to_string(s.numel));
        }
        return make(Kind::Storage, uint32_t(it->second));
    }

    uint32_t tensor(uint32_t storage, uint32_t offset, uint32_t size, uint32_t stride, DType dtype)
    {
        const Object& s = at(storage);
        if (s.kind != Kind::Storage)
            refuse("a tensor is rebuilt from a " + std::string(kindName(s.kind)) + ", not a storage");
        TorchTensor t;
        t.storage = s.a;
        t.dtype = dtype;
        t.storageOffset = nonNegative(offset, "a tensor's storage offset");
        t.size = ints(size, "a tensor's size");
        t.stride = ints(stride, "a tensor's stride");
        if (t.size.size() != t.stride.size())
            refuse("a tensor has " + std::to_string(t.size.size()) + " sizes but " + std::to_string(t.stride.size())
                   + " strides");
        m_tensors.push_back(std::move(t));
        return make(Kind::Tensor, uint32_t(m_tensors.size() - 1));
    }

    uint32_t reduce(uint32_t callable, uint32_t args)
    {
        const Object& f = at(callable);
        if (f.kind != Kind::Global)
            refuse("REDUCE calls a " + std::string(kindName(f.kind)) + ", not an allowed global");
        const GlobalRow& row = kAllowedGlobals[f.a];
        const Object& a = at(args);
        if (a.kind != Kind::Tuple)
            refuse("REDUCE's arguments are a " + std::string(kindName(a.kind)) + ", not a tuple");
        const auto items = tupleItems(a);
        const std::string who = std::string(row.module) + "." + std::string(row.name);
        const auto arity = [&](size_t lo, size_t hi) {
            if (items.size() < lo || items.size() > hi)
                refuse(who + " is called with " + std::to_string(items.size()) + " arguments, not "
                       + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)));
        };
        switch (row.callable) {
        case Callable::OrderedDict: arity(0, 0); return newContainer(Kind::Dict);
        case Callable::RebuildV2: {
            // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
            arity(6, 7);
            const Object& s = at(items[0]);
            const DType dtype = s.kind == Kind::Storage ? m_out.storages[s.a].dtype : DType::U8;
            return tensor(items[0], items[1], items[2], items[3], dtype);
        }
        case Callable::RebuildV3: {
            // (storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype[, metadata])
            arity(7, 8);
            const Object& d = at(items[6]);
            if (d.kind != Kind::Global || kAllowedGlobals[d.a].callable != Callable::Dtype)
                refuse(who + "'s dtype argument is a " + std::string(kindName(d.kind)) + ", not a torch dtype");
            return tensor(items[0], items[1], items[2], items[3], kAllowedGlobals[d.a].dtype);
        }
        case Callable::RebuildParameter: {
            // (data, requires_grad, backward_hooks): the tensor itself
            arity(3, 3);
            if (at(items[0]).kind != Kind::Tensor)
                refuse(who + " wraps a " + std::string(kindName(at(items[0]).kind)) + ", not a tensor");
            return items[0];
        }
        case Callable::StorageClass:
        case Callable::Dtype: break;
        }
        refuse("REDUCE calls " + who + ", which torch.save never calls");
    }

    uint32_t parse()
    {
        while (true) {
            m_opAt = m_pos;
            if (m_pos >= m_p.size())
                refuse("the pickle ends without STOP (truncated)");
            m_op = m_p[m_pos++];
            switch (m_op) {
            case 0x80: { // PROTO
                const uint64_t version = readLe(1);
                if (version < 2 || version > 5)
                    refuse("pickle protocol " + std::to_string(version)
                           + "; torch.save writes 2 (or 3 to 5 when asked)");
                break;
            }
            case 0x95: readLe(8); break; // FRAME: a hint for buffered readers
            case '}': push(newContainer(Kind::Dict)); break;
            case ']': push(newContainer(Kind::List)); break;
            case ')': push(make(Kind::Tuple, uint32_t(m_items.size()), 0)); break;
            case '(':
                if (m_marks.size() >= kMaxOpenMarks)
                    refuse("more than " + std::to_string(kMaxOpenMarks) + " MARKs open at once; torch.save opens 3");
                m_marks.push_back(m_stack.size());
                break;
            case 't': push(tuple(popMark())); break;
            case 0x85:
            case 0x86:
            case 0x87: {
                const size_t n = size_t(m_op - 0x84);
                const size_t floor = m_marks.empty() ? 0 : m_marks.back();
                if (m_stack.size() - floor < n)
                    refuse(std::string(opcodeName(m_op)) + " takes " + std::to_string(n) + " values from a stack of "
                           + std::to_string(m_stack.size() - floor));
                push(tuple(m_stack.size() - n));
                break;
            }
            case 'X': string(readLe(4)); break;
            case 0x8c: string(readLe(1)); break;
            case 0x8d: string(readLe(8)); break;
            case 'q': memoPut(readLe(1)); break;
            case 'r': memoPut(readLe(4)); break;
            case 0x94: memoPut(m_memo.size()); break;
            case 'h': memoGet(readLe(1)); break;
            case 'j': memoGet(readLe(4)); break;
            case 'c': {
                const std::string_view module = globalLine();
                const std::string_view name = globalLine();
                global(module, name);
                break;
            }
            case 0x93: { // STACK_GLOBAL
                const Object& name = at(pop());
                const Object& module = at(pop());
                if (name.kind != Kind::String || module.kind != Kind::String)
                    refuse("STACK_GLOBAL's module and name are not strings");
                global(text(module), text(name));
                break;
            }
            case 'Q': push(persistentStorage(pop())); break;
            case 'R': {
                const uint32_t args = pop();
                const uint32_t callable = pop();
                push(reduce(callable, args));
                break;
            }
            case 'b': { // BUILD: an OrderedDict's state (its _metadata) is not needed
                pop();
                const uint32_t target = pop();
                if (at(target).kind != Kind::Dict)
                    refuse("BUILD sets the state of a " + std::string(kindName(at(target).kind))
                           + "; torch.save builds only ordered dicts");
                push(target);
                break;
            }
            case 's': {
                const uint32_t value = pop();
                const uint32_t key = pop();
                std::vector<uint32_t>& dict = containerBelow(m_stack.size(), Kind::Dict);
                dict.push_back(key);
                dict.push_back(value);
                break;
            }
            case 'u': {
                const size_t from = popMark();
                if ((m_stack.size() - from) % 2 != 0)
                    refuse("SETITEMS with an odd number of values (a key without a value)");
                std::vector<uint32_t>& dict = containerBelow(from, Kind::Dict);
                dict.insert(dict.end(), m_stack.begin() + std::ptrdiff_t(from), m_stack.end());
                m_stack.resize(from);
                break;
            }
            case 'a': {
                const uint32_t value = pop();
                containerBelow(m_stack.size(), Kind::List).push_back(value);
                break;
            }
            case 'e': {
                const size_t from = popMark();
                std::vector<uint32_t>& list = containerBelow(from, Kind::List);
                list.insert(list.end(), m_stack.begin() + std::ptrdiff_t(from), m_stack.end());
                m_stack.resize(from);
                break;
            }
            case 0x88: push(make(Kind::Bool, 0, 1)); break;
            case 0x89: push(make(Kind::Bool, 0, 0)); break;
            case 'N': push(make(Kind::None)); break;
            case 'J': push(make(Kind::Int, 0, uint64_t(int64_t(int32_t(uint32_t(readLe(4))))))); break;
            case 'K': push(make(Kind::Int, 0, readLe(1))); break;
            case 'M': push(make(Kind::Int, 0, readLe(2))); break;
            case 0x8a: { // LONG1: n bytes of two's complement
                const uint64_t n = readLe(1);
                if (n > 8)
                    refuse("LONG1 of " + std::to_string(n) + " bytes; no size or count needs more than 8");
                uint64_t v = readLe(size_t(n));
                if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1)
                    v |= ~uint64_t(0) << (8 * n);
                push(make(Kind::Int, 0, v));
                break;
            }
            case 'G': { // BINFLOAT: big-endian double
                need(8);
                uint64_t bits = 0;
                for (size_t i = 0; i < 8; ++i)
                    bits = (bits << 8) | m_p[m_pos + i];
                m_pos += 8;
                push(make(Kind::Float, 0, bits));
                break;
            }
            case '.': return pop();
            default: {
                const std::string_view name = opcodeName(m_op);
                refuse("opcode " + hexByte(m_op)
                       + (name.empty() ? " is not a pickle opcode" : " (" + std::string(name) + ")")
                       + " is not one torch.save writes for tensors, storages or dicts; refused, nothing was "
                         "executed");
            }
            }
        }
    }

    void addMetadata(const std::string& name, const Object& o)
    {
        MetaValue v;
        switch (o.kind) {
        case Kind::None: v.value = std::string("None"); break;
        case Kind::Bool:
            v.type = MetaValue::Type::Bool;
            v.value = o.b != 0;
            break;
        case Kind::Int:
            v.type = MetaValue::Type::I64;
            v.value = intValue(o);
            break;
        case Kind::Float: {
            double d;
            std::memcpy(&d, &o.b, sizeof d);
            v.type = MetaValue::Type::F64;
            v.value = d;
            break;
        }
        case Kind::String: v.value = std::string(text(o)); break;
        default: ++m_out.skipped; return;
        }
        m_out.metadata.emplace_back(name, std::move(v));
    }

    // The dicts and lists from the root, depth first in their order: tensors named by the keys
    // on their path. A container reached twice (shared or a cycle) is refused: torch.save's
    // state dicts are trees, and walking a shared one again could take exponential time.
    void walk(uint32_t root)
    {
        const Object& r = at(root);
        if (r.kind != Kind::Dict)
            fail(m_file, "data.pkl holds a " + std::string(kindName(r.kind)) + ", not a dict of tensors");
        struct Frame {
            uint32_t container;
            bool dict;
            size_t next;
            std::string prefix;
        };
        std::vector<bool> walked(m_containers.size());
        walked[r.a] = true;
        std::vector<Frame> frames{{r.a, true, 0, {}}};
        while (!frames.empty()) {
            Frame& f = frames.back();
            const std::vector<uint32_t>& items = m_containers[f.container];
            const size_t step = f.dict ? 2 : 1;
            if (f.next >= items.size()) {
                frames.pop_back();
                continue;
            }
            if (f.dict && at(items[f.next]).kind != Kind::String && at(items[f.next]).kind != Kind::Int)
                fail(m_file,
                     "data.pkl: a key of the dict at '" + f.prefix + "' is a "
                         + std::string(kindName(at(items[f.next]).kind)) + ", not a str or an int");
            const std::string key = f.dict ? keyText(items[f.next], "a dict key") : std::to_string(f.next);
            const uint32_t valueIndex = items[f.next + step - 1];
            f.next += step;
            const std::string name = f.prefix.empty() ? key : f.prefix + "." + key;
            const Object& value = at(valueIndex);
            if (value.kind == Kind::Tensor) {
                TorchTensor t = m_tensors[value.a];
                t.name = name;
                m_out.tensors.push_back(std::move(t));
            } else if (value.kind == Kind::Dict || value.kind == Kind::List) {
                if (walked[value.a])
                    fail(m_file,
                         "data.pkl: the " + std::string(kindName(value.kind)) + " at '" + name
                             + "' is reached a second time (shared or a cycle); torch.save's state dicts "
                               "are trees");
                if (frames.size() >= kMaxNesting)
                    fail(m_file,
                         "data.pkl: '" + name + "' is nested more than " + std::to_string(kMaxNesting)
                             + " dicts and lists deep");
                walked[value.a] = true;
                frames.push_back({value.a, value.kind == Kind::Dict, 0, name});
            } else {
                addMetadata(name, value);
            }
        }
    }

    std::span<const uint8_t> m_p;
    const std::string& m_file;
    size_t m_pos = 0, m_opAt = 0;
    uint8_t m_op = 0;
    std::vector<Object> m_objects;
    std::vector<uint32_t> m_stack;
    std::vector<size_t> m_marks;
    std::unordered_map<uint32_t, uint32_t> m_memo;
    std::vector<uint32_t> m_items; // tuples' members
    std::vector<std::vector<uint32_t>> m_containers; // lists' items, dicts' keys and values
    std::vector<TorchTensor> m_tensors; // rebuilt, not yet named
    std::unordered_map<std::string, size_t> m_storageByKey;
    TorchPickle m_out;
};

} // namespace

TorchPickle readTorchPickle(std::span<const uint8_t> pickle, const std::string& file)
{
    return Unpickler(pickle, file).run();
}

} // namespace qs
