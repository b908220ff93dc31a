//! A module's instructions as views of its words: the opcode, the result
//! type and id, and the operand words, with nothing allocated per
//! instruction.
//!
//! Reflection used to read the module through rspirv's data representation,
//! which allocates a vector of operands (and a `String` per literal string)
//! for every instruction and finds each opcode's grammar by a linear search
//! of its table; that was half of reflecting a module, the largest part of
//! halc's own work on a large kernel and of the parent's share of a batch
//! (docs/performance.md). The grammar (which operands are ids, and how many
//! words each takes) still comes from rspirv's tables, through an index
//! built once per process.
//!
//! Reflection runs before the validator's verdict is in, so everything here
//! is total: a malformed instruction is an error, never a panic or a read
//! past its words.

use std::sync::OnceLock;

use rspirv::grammar::{self, OperandKind, OperandQuantifier, INSTRUCTION_TABLE};
use rspirv::spirv::{self, Op};

use super::{SpirvError, Words};

type Grammar = &'static grammar::Instruction<'static>;

/// One instruction.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inst<'a> {
    /// The opcode.
    pub(crate) op: Op,
    /// The result type, for an instruction that has one.
    pub(crate) result_type: Option<u32>,
    /// The result id, for an instruction that has one.
    pub(crate) result_id: Option<u32>,
    /// The words after the opcode word, the result type and the result id.
    pub(crate) operands: &'a [u32],
    /// Word offset of the instruction in the module.
    pub(crate) offset: usize,
    grammar: Grammar,
    /// Whether every operand word is an id (see [`Table::only_ids`]).
    only_ids: bool,
}

/// The core grammar, indexed by opcode (rspirv's own lookup is a linear
/// search of some 750 entries).
struct Table {
    /// Opcode -> index + 1 into `entries`; 0 for an unknown opcode.
    index: Vec<u16>,
    entries: Vec<Entry>,
}

/// What reading an instruction needs of its opcode's grammar, in one small
/// record: the grammar's operand lists lie all over rspirv's tables, and
/// reading the first two of them for every instruction was the hottest
/// load of parsing a batch (`perf annotate`).
#[derive(Clone, Copy)]
struct Entry {
    op: Op,
    grammar: Grammar,
    /// Whether its operands are all ids ([`Table::only_ids`]).
    only_ids: bool,
    /// Its first two logical operands, as far as they are the result type
    /// and the result id: what parsing takes before the operands.
    lead: [Lead; 2],
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lead {
    ResultType,
    ResultId,
    /// Neither: the operands start here.
    Stop,
}

impl Table {
    fn lead(g: Grammar) -> [Lead; 2] {
        let mut lead = [Lead::Stop; 2];
        for (slot, lop) in lead.iter_mut().zip(g.operands) {
            *slot = match lop.kind {
                OperandKind::IdResultType => Lead::ResultType,
                OperandKind::IdResult => Lead::ResultId,
                _ => break,
            };
        }
        lead
    }

    /// Whether every operand of `g` after its result is an id, one word
    /// each (`OpIAdd`, `OpAccessChain`, `OpFunctionCall`, ...): then every
    /// operand word is an id, and reading them needs no grammar walk.
    fn only_ids(g: Grammar) -> bool {
        g.operands.iter().all(|l| {
            matches!(
                l.kind,
                OperandKind::IdResultType
                    | OperandKind::IdResult
                    | OperandKind::IdRef
                    | OperandKind::IdScope
                    | OperandKind::IdMemorySemantics
            )
        })
    }
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let entries: Vec<Entry> = INSTRUCTION_TABLE
            .iter()
            .map(|g| Entry {
                op: g.opcode,
                grammar: g,
                only_ids: Table::only_ids(g),
                lead: Table::lead(g),
            })
            .collect();
        let mut index = vec![0u16; 1 << 16];
        for (i, e) in entries.iter().enumerate() {
            let op = e.op as u32;
            if let (Ok(op), Ok(i)) = (usize::try_from(op), u16::try_from(i + 1)) {
                if op < index.len() {
                    index[op] = i;
                }
            }
        }
        Table { index, entries }
    })
}

/// What reading an instruction of `opcode` needs of its grammar.
fn lookup(opcode: u32) -> Option<Entry> {
    let t = table();
    let i = *t.index.get(usize::try_from(opcode).ok()?)?;
    (i != 0).then(|| t.entries[usize::from(i) - 1])
}

fn grammar(opcode: u32) -> Option<Grammar> {
    lookup(opcode).map(|e| e.grammar)
}

fn malformed(inst_offset: usize, op: Op, what: &str) -> SpirvError {
    SpirvError::Parse(format!("Op{op:?} at word {inst_offset}: {what}"))
}

/// Every instruction of `words` after the header, in module order.
pub(crate) fn parse(words: &Words) -> Result<Vec<Inst<'_>>, SpirvError> {
    // Sized exactly: counting the instructions is a walk over their first
    // words, and a vector grown by doubling would copy and fault in more.
    let mut out = Vec::with_capacity(words.instructions().count());
    for raw in words.instructions() {
        let raw = raw?;
        let e = lookup(u32::from(raw.opcode)).ok_or_else(|| {
            SpirvError::Parse(format!(
                "unknown opcode {} at word {}",
                raw.opcode, raw.offset
            ))
        })?;
        let g = e.grammar;
        let mut rest = &raw.words[1..];
        let mut result_type = None;
        let mut result_id = None;
        for lead in e.lead {
            let slot = match lead {
                Lead::ResultType => &mut result_type,
                Lead::ResultId => &mut result_id,
                Lead::Stop => break,
            };
            let Some((&w, tail)) = rest.split_first() else {
                return Err(malformed(raw.offset, e.op, "its result is missing"));
            };
            *slot = Some(w);
            rest = tail;
        }
        out.push(Inst {
            op: e.op,
            result_type,
            result_id,
            operands: rest,
            offset: raw.offset,
            grammar: g,
            only_ids: e.only_ids,
        });
    }
    Ok(out)
}

/// Words a literal string takes, its nul included: up to and including the
/// first word with a zero byte.
fn string_words(words: &[u32]) -> Option<usize> {
    words
        .iter()
        .position(|w| w.to_le_bytes().contains(&0))
        .map(|i| i + 1)
}

impl<'a> Inst<'a> {
    /// Operand word `i` (after the result type and id).
    pub(crate) fn word(&self, i: usize) -> Option<u32> {
        self.operands.get(i).copied()
    }

    /// The literal string starting at operand word `i`, and the index of
    /// the word after it.
    pub(crate) fn string(&self, i: usize) -> Result<(String, usize), SpirvError> {
        let words = self.operands.get(i..).unwrap_or_default();
        let n = string_words(words)
            .ok_or_else(|| malformed(self.offset, self.op, "a literal string has no nul"))?;
        let bytes: Vec<u8> = words[..n]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take_while(|b| *b != 0)
            .collect();
        let s = String::from_utf8(bytes)
            .map_err(|_| malformed(self.offset, self.op, "a literal string is not valid UTF-8"))?;
        Ok((s, i + n))
    }

    /// Calls `f` with every id the instruction's operands refer to (kinds
    /// `IdRef`, `IdScope`, `IdMemorySemantics`, the parameters of image
    /// operands and memory access masks included), in operand order, as
    /// rspirv's parser reads them. `literal_words(id)` is the number of words
    /// a literal of value `id`'s type takes (2 for 64-bit types), for
    /// `OpSwitch`'s case literals.
    pub(crate) fn for_each_id(
        &self,
        literal_words: impl Fn(u32) -> usize,
        mut f: impl FnMut(u32),
    ) -> Result<(), SpirvError> {
        if self.only_ids {
            self.operands.iter().for_each(|&id| f(id));
            return Ok(());
        }
        let lops = self.grammar.operands;
        // The result type and id are always the first logical operands.
        let skip = usize::from(self.result_type.is_some()) + usize::from(self.result_id.is_some());
        let mut cursor = Cursor {
            words: self.operands,
            inst: self,
        };
        let mut k = skip;
        while k < lops.len() {
            let lop = &lops[k];
            if cursor.words.is_empty() {
                match lop.quantifier {
                    OperandQuantifier::One => {
                        return Err(malformed(self.offset, self.op, "an operand is missing"))
                    }
                    OperandQuantifier::ZeroOrOne | OperandQuantifier::ZeroOrMore => break,
                }
            }
            match lop.kind {
                OperandKind::LiteralContextDependentNumber => {
                    let n = self.result_type.map_or(1, &literal_words);
                    cursor.skip(n)?;
                }
                OperandKind::PairLiteralIntegerIdRef => {
                    let n = self.word(0).map_or(1, &literal_words);
                    cursor.skip(n)?;
                    f(cursor.take()?);
                }
                OperandKind::LiteralSpecConstantOpInteger => {
                    let inner = cursor.take()?;
                    let g = grammar(inner).ok_or_else(|| {
                        malformed(self.offset, self.op, "its operation is not an opcode")
                    })?;
                    // rspirv reads each of the operation's logical operands
                    // once; literals past them are not ids.
                    for lop in g.operands {
                        if !matches!(lop.kind, OperandKind::IdResultType | OperandKind::IdResult) {
                            cursor.operand(lop.kind, &mut f)?;
                        }
                    }
                    cursor.words = &[];
                }
                kind => cursor.operand(kind, &mut f)?,
            }
            match lop.quantifier {
                OperandQuantifier::One | OperandQuantifier::ZeroOrOne => k += 1,
                OperandQuantifier::ZeroOrMore => {}
            }
        }
        Ok(())
    }
}

/// Reads one instruction's operand words.
struct Cursor<'a, 'i> {
    words: &'a [u32],
    inst: &'i Inst<'a>,
}

impl Cursor<'_, '_> {
    fn missing(&self) -> SpirvError {
        malformed(self.inst.offset, self.inst.op, "an operand is missing")
    }

    fn take(&mut self) -> Result<u32, SpirvError> {
        let (&w, rest) = self.words.split_first().ok_or_else(|| self.missing())?;
        self.words = rest;
        Ok(w)
    }

    fn skip(&mut self, n: usize) -> Result<(), SpirvError> {
        self.words = self.words.get(n..).ok_or_else(|| self.missing())?;
        Ok(())
    }

    /// One logical operand of `kind` (not one of the kinds that depend on
    /// other operands, which the caller reads).
    fn operand(&mut self, kind: OperandKind, f: &mut impl FnMut(u32)) -> Result<(), SpirvError> {
        use OperandKind as K;
        match kind {
            K::IdRef | K::IdScope | K::IdMemorySemantics => f(self.take()?),
            K::PairIdRefIdRef => {
                f(self.take()?);
                f(self.take()?);
            }
            K::PairIdRefLiteralInteger => {
                f(self.take()?);
                self.take()?;
            }
            K::LiteralString => {
                let n = string_words(self.words).ok_or_else(|| {
                    malformed(
                        self.inst.offset,
                        self.inst.op,
                        "a literal string has no nul",
                    )
                })?;
                self.skip(n)?;
            }
            K::ImageOperands => {
                use spirv::ImageOperands as I;
                // Every parameter of an image operand is an id; Grad has two.
                self.mask(
                    "image operands",
                    I::all().bits(),
                    &[
                        (I::BIAS.bits(), 1, 0),
                        (I::LOD.bits(), 1, 0),
                        (I::GRAD.bits(), 2, 0),
                        (I::CONST_OFFSET.bits(), 1, 0),
                        (I::OFFSET.bits(), 1, 0),
                        (I::CONST_OFFSETS.bits(), 1, 0),
                        (I::SAMPLE.bits(), 1, 0),
                        (I::MIN_LOD.bits(), 1, 0),
                        (I::MAKE_TEXEL_AVAILABLE.bits(), 1, 0),
                        (I::MAKE_TEXEL_VISIBLE.bits(), 1, 0),
                        (I::OFFSETS.bits(), 1, 0),
                    ],
                    f,
                )?;
            }
            K::MemoryAccess => {
                use spirv::MemoryAccess as M;
                self.mask(
                    "memory access",
                    M::all().bits(),
                    &[
                        (M::ALIGNED.bits(), 0, 1),
                        (M::MAKE_POINTER_AVAILABLE.bits(), 1, 0),
                        (M::MAKE_POINTER_VISIBLE.bits(), 1, 0),
                        (M::ALIAS_SCOPE_INTEL_MASK.bits(), 1, 0),
                        (M::NO_ALIAS_INTEL_MASK.bits(), 1, 0),
                    ],
                    f,
                )?;
            }
            K::LoopControl => {
                use spirv::LoopControl as L;
                // Every parameter of a loop control is a literal.
                let literal = |bit: L| (bit.bits(), 0, 1);
                self.mask(
                    "loop control",
                    L::all().bits(),
                    &[
                        literal(L::DEPENDENCY_LENGTH),
                        literal(L::MIN_ITERATIONS),
                        literal(L::MAX_ITERATIONS),
                        literal(L::ITERATION_MULTIPLE),
                        literal(L::PEEL_COUNT),
                        literal(L::PARTIAL_COUNT),
                        literal(L::INITIATION_INTERVAL_ALTERA),
                        literal(L::MAX_CONCURRENCY_ALTERA),
                        literal(L::DEPENDENCY_ARRAY_ALTERA),
                        literal(L::PIPELINE_ENABLE_ALTERA),
                        literal(L::LOOP_COALESCE_ALTERA),
                        literal(L::MAX_INTERLEAVING_ALTERA),
                        literal(L::SPECULATED_ITERATIONS_ALTERA),
                        literal(L::LOOP_COUNT_ALTERA),
                        literal(L::MAX_REINVOCATION_DELAY_ALTERA),
                    ],
                    f,
                )?;
            }
            K::TensorAddressingOperands => {
                use spirv::TensorAddressingOperands as T;
                self.mask(
                    "tensor addressing operands",
                    T::all().bits(),
                    &[(T::TENSOR_VIEW.bits(), 1, 0), (T::DECODE_FUNC.bits(), 1, 0)],
                    f,
                )?;
            }
            K::TensorOperands => {
                use spirv::TensorOperands as T;
                self.mask(
                    "tensor operands",
                    T::all().bits(),
                    &[
                        (T::OUT_OF_BOUNDS_VALUE_ARM.bits(), 1, 0),
                        (T::MAKE_ELEMENT_AVAILABLE_ARM.bits(), 1, 0),
                        (T::MAKE_ELEMENT_VISIBLE_ARM.bits(), 1, 0),
                    ],
                    f,
                )?;
            }
            // Decorations and execution modes carry parameters of their own
            // (ids among them); they belong to the module's annotations and
            // modes, never to a function body, where this is read.
            K::Decoration | K::ExecutionMode => {
                return Err(malformed(
                    self.inst.offset,
                    self.inst.op,
                    "a decoration or execution mode inside a function",
                ))
            }
            K::IdResultType
            | K::IdResult
            | K::LiteralContextDependentNumber
            | K::PairLiteralIntegerIdRef
            | K::LiteralSpecConstantOpInteger => {
                return Err(malformed(
                    self.inst.offset,
                    self.inst.op,
                    "an operation that cannot be a constant's",
                ))
            }
            // Every other kind (literal integers and floats, enumerants
            // without parameters, flag masks without parameters) is one word.
            _ => {
                self.take()?;
            }
        }
        Ok(())
    }

    /// A flag-mask operand of which some flags take parameters: the mask,
    /// then, for each flag set, in `params`' order (ascending bits, as the
    /// grammar and rspirv read them), its `ids` ids and `literals` literal
    /// words. A flag outside `known` is an error, as it is to rspirv: its
    /// parameters are unknown.
    fn mask(
        &mut self,
        what: &str,
        known: u32,
        params: &[(u32, u8, u8)],
        f: &mut impl FnMut(u32),
    ) -> Result<(), SpirvError> {
        let mask = self.take()?;
        if mask & !known != 0 {
            return Err(malformed(
                self.inst.offset,
                self.inst.op,
                &format!("unknown {what} {mask:#x}"),
            ));
        }
        for &(bit, ids, literals) in params {
            if mask & bit != 0 {
                for _ in 0..ids {
                    f(self.take()?);
                }
                self.skip(usize::from(literals))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "../../benches/corpus/mod.rs"]
#[allow(dead_code, missing_docs)]
mod corpus;

#[cfg(test)]
mod tests {
    //! The views against rspirv's parser, the oracle they replace: for
    //! every instruction of every fixture, benchmark-corpus module and
    //! hand-assembled edge case, the same opcode, result type and id, and
    //! the same ids in the same order (rspirv's `IdRef`, `IdScope` and
    //! `IdMemorySemantics` operands).

    use rspirv::binary::{Consumer, ParseAction};
    use rspirv::dr::{self, ModuleHeader, Operand};
    use spirv_tools::assembler::Assembler;

    use super::*;

    use super::corpus;

    #[derive(Default)]
    struct Collect(Vec<dr::Instruction>);

    impl Consumer for Collect {
        fn initialize(&mut self) -> ParseAction {
            ParseAction::Continue
        }
        fn finalize(&mut self) -> ParseAction {
            ParseAction::Continue
        }
        fn consume_header(&mut self, _: ModuleHeader) -> ParseAction {
            ParseAction::Continue
        }
        fn consume_instruction(&mut self, inst: dr::Instruction) -> ParseAction {
            self.0.push(inst);
            ParseAction::Continue
        }
    }

    /// rspirv's instructions. rspirv takes one literal per logical operand
    /// of an `OpSpecConstantOp`'s operation, so a `CompositeExtract` with two
    /// indices is "extra operands" to it: those instructions are given to it
    /// with their first index only (they have no further ids).
    fn oracle(words: &Words) -> Vec<dr::Instruction> {
        let mut stream = words.as_slice()[..crate::spirv::binary::HEADER_WORDS].to_vec();
        for raw in words.instructions() {
            let w = raw.expect("well-formed stream").words;
            let keep = match (raw_opcode(w), w.get(3)) {
                (52, Some(81)) => 6,
                (52, Some(82 | 79)) => 7,
                _ => w.len(),
            }
            .min(w.len());
            stream.push((keep as u32) << 16 | (w[0] & 0xffff));
            stream.extend_from_slice(&w[1..keep]);
        }
        let mut c = Collect::default();
        rspirv::binary::parse_words(&stream, &mut c).expect("rspirv parses it");
        c.0
    }

    fn raw_opcode(w: &[u32]) -> u32 {
        w[0] & 0xffff
    }

    fn rspirv_ids(inst: &dr::Instruction) -> Vec<u32> {
        inst.operands
            .iter()
            .filter_map(|o| match o {
                Operand::IdRef(i) | Operand::IdScope(i) | Operand::IdMemorySemantics(i) => Some(*i),
                _ => None,
            })
            .collect()
    }

    /// Compares every instruction; returns how many had ids.
    fn agree(name: &str, words: &Words) -> usize {
        let ours = parse(words).unwrap_or_else(|e| panic!("{name}: {e}"));
        let theirs = oracle(words);
        assert_eq!(ours.len(), theirs.len(), "{name}: instruction count");
        let ix = crate::spirv::index::Index::new(&ours);
        let literal_words = |id| ix.literal_words(id);
        let mut with_ids = 0;
        for (a, b) in ours.iter().zip(&theirs) {
            let at = format!("{name}: Op{:?} at word {}", a.op, a.offset);
            assert_eq!(a.op, b.class.opcode, "{at}");
            assert_eq!(a.result_type, b.result_type, "{at}");
            assert_eq!(a.result_id, b.result_id, "{at}");
            if matches!(
                a.op,
                Op::Decorate
                    | Op::DecorateId
                    | Op::MemberDecorate
                    | Op::ExecutionMode
                    | Op::ExecutionModeId
                    | Op::DecorateString
                    | Op::MemberDecorateString
            ) {
                // Not read inside functions (see `Cursor::operand`).
                continue;
            }
            let mut ids = Vec::new();
            a.for_each_id(literal_words, |id| ids.push(id))
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(ids, rspirv_ids(b), "{at}");
            with_ids += usize::from(!ids.is_empty());
        }
        with_ids
    }

    fn assemble(text: &str) -> Words {
        let asm = spirv_tools::assembler::create(Some(spirv_tools::TargetEnv::Universal_1_5));
        let bin = asm
            .assemble(text, Default::default())
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        Words::from_bytes(bin.as_bytes()).expect("words")
    }

    #[test]
    fn every_fixture_and_corpus_module_reads_as_rspirv_reads_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut n = 0;
        for dir in ["fixtures/kernels", "fixtures/slow"] {
            for entry in std::fs::read_dir(root.join(dir)).expect("fixtures") {
                let path = entry.expect("entry").path();
                if path.extension().is_some_and(|e| e == "spv") {
                    let bytes = std::fs::read(&path).expect("read");
                    let words = Words::from_bytes(&bytes).expect("words");
                    agree(&path.display().to_string(), &words);
                    n += 1;
                }
            }
        }
        // The corpus's generated modules: spec-constant variants of the
        // fixtures and the synthetic kernels.
        for entry in std::fs::read_dir(root.join("fixtures/kernels")).expect("fixtures") {
            let path = entry.expect("entry").path();
            let Ok(words) = Words::from_bytes(&std::fs::read(&path).expect("read")) else {
                continue;
            };
            for factor in [2, 3, 4] {
                if let Some(v) = corpus::spec_variant(words.as_slice(), factor) {
                    agree(
                        &format!("{} x{factor}", path.display()),
                        &Words::from_words(v).expect("words"),
                    );
                    n += 1;
                }
            }
        }
        for s in corpus::synthetic_shapes() {
            let words = Words::from_words(corpus::synthetic(s)).expect("words");
            agree(&format!("{s:?}"), &words);
            n += 1;
        }
        assert!(n > 200, "{n} modules");
    }

    /// Operands whose words depend on other operands: image operands with
    /// Grad and ConstOffset, memory access with an alignment and a scope id,
    /// loop controls with parameters, a 64-bit and a 32-bit `OpSwitch`,
    /// `OpPhi`, extended instructions (GLSL `modf` takes a pointer), atomics
    /// with scope and semantics ids, a spec-constant operation with two
    /// indices and a 64-bit constant.
    #[test]
    fn operands_sized_by_other_operands_read_as_rspirv_reads_them() {
        let text = r#"
            OpCapability Shader
            OpCapability Int64
            OpCapability VulkanMemoryModel
            %glsl = OpExtInstImport "GLSL.std.450"
            OpMemoryModel Logical Vulkan
            OpEntryPoint GLCompute %main "main" %buf %img %out
            OpExecutionMode %main LocalSize 1 1 1
            OpDecorate %buf DescriptorSet 0
            OpDecorate %buf Binding 0
            OpDecorate %img DescriptorSet 0
            OpDecorate %img Binding 1
            OpDecorate %S Block
            OpMemberDecorate %S 0 Offset 0
            %void = OpTypeVoid
            %fn = OpTypeFunction %void
            %u32 = OpTypeInt 32 0
            %u64 = OpTypeInt 64 0
            %f32 = OpTypeFloat 32
            %v2f = OpTypeVector %f32 2
            %v2i = OpTypeVector %u32 2
            %v4f = OpTypeVector %f32 4
            %S = OpTypeStruct %u32
            %pS = OpTypePointer StorageBuffer %S
            %pu = OpTypePointer StorageBuffer %u32
            %pf = OpTypePointer Private %f32
            %buf = OpVariable %pS StorageBuffer
            %out = OpVariable %pf Private
            %img2d = OpTypeImage %f32 2D 0 0 0 1 Unknown
            %simg = OpTypeSampledImage %img2d
            %pimg = OpTypePointer UniformConstant %simg
            %img = OpVariable %pimg UniformConstant
            %c0 = OpConstant %u32 0
            %c1 = OpConstant %u32 1
            %c2 = OpConstant %u32 2
            %big = OpConstant %u64 0x100000002
            %sc = OpSpecConstant %u32 7
            %cv = OpConstantComposite %v2i %c1 %c2
            %sv = OpSpecConstantComposite %v2i %sc %c1
            %x = OpSpecConstantOp %u32 CompositeExtract %sv 1
            %f0 = OpConstant %f32 0.5
            %uv = OpConstantComposite %v2f %f0 %f0
            %main = OpFunction %void None %fn
            %entry = OpLabel
            %p = OpAccessChain %pu %buf %c0
            %v = OpLoad %u32 %p Aligned|MakePointerVisible|NonPrivatePointer 4 %c1
            OpStore %p %v Aligned 4
            %a = OpAtomicIAdd %u32 %p %c1 %c0 %v
            %si = OpLoad %simg %img
            %s1 = OpImageSampleExplicitLod %v4f %si %uv Grad|ConstOffset %uv %uv %cv
            %s2 = OpImageSampleExplicitLod %v4f %si %uv Lod %f0
            %m = OpExtInst %f32 %glsl Modf %f0 %out
            %w = OpUConvert %u64 %v
            OpSelectionMerge %merge None
            OpSwitch %w %merge 0x100000002 %case 3 %case
            %case = OpLabel
            OpBranch %loop
            %loop = OpLabel
            OpLoopMerge %merge %cont DependencyLength|MinIterations 4 2
            OpBranch %cont
            %cont = OpLabel
            OpBranchConditional %false %loop %merge
            %merge = OpLabel
            %phi = OpPhi %u32 %c0 %entry %c1 %cont %v %case
            OpSelectionMerge %end None
            OpSwitch %phi %end 1 %end 2 %end
            %end = OpLabel
            OpReturn
            OpFunctionEnd
        "#
        .replace("%false", "%f")
        .replace(
            "%main = OpFunction",
            "%bool = OpTypeBool\n%f = OpConstantFalse %bool\n%main = OpFunction",
        );
        let words = assemble(&text);
        let with_ids = agree("edge cases", &words);
        assert!(with_ids >= 20, "{with_ids} instructions with ids");
        // The 64-bit case literal takes two words: reading it as one would
        // take its high word for the label.
        let insts = parse(&words).expect("parses");
        let switch = insts.iter().find(|i| i.op == Op::Switch).expect("switch");
        assert_eq!(switch.operands.len(), 2 + (2 + 1) + (2 + 1));
    }

    /// Every opcode of rspirv's grammar is found, core and extension
    /// opcodes alike, and nothing else is.
    #[test]
    fn the_grammar_index_finds_every_opcode_and_only_those() {
        let mut extension = 0;
        for g in INSTRUCTION_TABLE.iter() {
            let op = g.opcode as u32;
            assert_eq!(grammar(op).map(|f| f.opcode), Some(g.opcode), "{op}");
            extension += usize::from(op >= 4096);
        }
        assert!(extension > 100, "{extension} extension opcodes");
        let known: std::collections::BTreeSet<u32> =
            INSTRUCTION_TABLE.iter().map(|g| g.opcode as u32).collect();
        for op in (0..=u32::from(u16::MAX)).chain([1 << 16, u32::MAX]) {
            assert_eq!(grammar(op).is_some(), known.contains(&op), "{op}");
        }
    }
}
