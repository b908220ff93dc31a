//! [`Session`]: a [`Reference`] whose buffers and pipelines are named by
//! handles, run in this process or in a child process.
//!
//! A Vulkan driver is C and C++ code handed whatever SPIR-V the caller has:
//! when it crashes (lavapipe segfaulted compiling one of ggml's kernels) or
//! hangs in pipeline creation, a [`Reference`] in the caller's process takes
//! the caller down with it. [`Place::Child`] runs the driver in a child
//! process that serves requests over its stdin and stdout ([`serve`]): a
//! crash ends the child and becomes [`Error::Crashed`], naming the signal
//! and what the driver was doing, and a request that gets no answer in time
//! kills it. [`Place::InProcess`] is the same API without the process.

use std::cell::RefCell;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use runtime_loader::scene;

use crate::accel::AccelerationStructure;
use crate::buffer::Buffer;
use crate::desc::Format;
use crate::desc::{ImageDesc, SamplerDesc};
use crate::dispatch::{Bound, Resource};
use crate::error::{Error, Result};
use crate::image::{Image, Sampler};
use crate::pipeline::{BindingDesc, BindingKind, Pipeline, PipelineDesc};
use crate::reference::{DriverInfo, Reference, ReferenceOptions};

/// Where a [`Session`] runs the driver.
#[derive(Debug)]
pub enum Place {
    /// In this process: a driver crash is this process's crash.
    InProcess,
    /// In a child process started from this command, which must call
    /// [`serve`] on its stdin and stdout (halc runs `halc
    /// __vulkan-reference`). Its stderr is inherited (driver warnings).
    Child(Command),
}

/// A buffer of a [`Session`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferId(u32);

/// An image of a [`Session`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageId(u32);

/// A sampler of a [`Session`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SamplerId(u32);

/// A pipeline of a [`Session`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipelineId(u32);

/// An acceleration structure of a [`Session`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccelerationStructureId(u32);

/// A resource bound to one descriptor, as [`Bound`] but by handle.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct SessionBound {
    /// Descriptor set.
    pub set: u32,
    /// Binding.
    pub binding: u32,
    /// Array element (0 unless the binding's count is > 1).
    pub element: u32,
    /// What is bound.
    pub resource: SessionResource,
}

impl SessionBound {
    /// The whole `buffer` at (`set`, `binding`), element 0.
    pub fn buffer(set: u32, binding: u32, buffer: BufferId) -> SessionBound {
        SessionBound::of(
            set,
            binding,
            SessionResource::Buffer {
                buffer,
                offset: 0,
                range: None,
            },
        )
    }

    /// `resource` at (`set`, `binding`), element 0.
    pub fn of(set: u32, binding: u32, resource: SessionResource) -> SessionBound {
        SessionBound {
            set,
            binding,
            element: 0,
            resource,
        }
    }
}

/// What a [`SessionBound`] binds: [`Resource`] by handle.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub enum SessionResource {
    /// A storage or uniform buffer range.
    Buffer {
        /// The buffer.
        buffer: BufferId,
        /// Byte offset of the range.
        offset: u64,
        /// Byte size of the range (`None`: to the end of the buffer).
        range: Option<u64>,
    },
    /// A texel buffer: a buffer range as texels of `format`.
    TexelBuffer {
        /// The buffer.
        buffer: BufferId,
        /// The texels' format.
        #[serde(with = "crate::desc::format_name")]
        format: Format,
        /// Byte offset.
        offset: u64,
        /// Byte size (`None`: to the end).
        range: Option<u64>,
    },
    /// A storage or sampled image.
    Image(ImageId),
    /// A sampler.
    Sampler(SamplerId),
    /// A combined image-sampler.
    CombinedImageSampler(ImageId, SamplerId),
    /// A storage or sampled image seen from a level on (a view whose base
    /// mip level is the given one; `Image::from_level`).
    ImageFromLevel(ImageId, u32),
    /// A combined image-sampler, the image seen from a level on.
    CombinedImageSamplerFromLevel(ImageId, SamplerId, u32),
    /// A top-level acceleration structure.
    AccelerationStructure(AccelerationStructureId),
}

/// A [`Reference`] with its buffers and pipelines, in this process or a
/// child's (see the module docs). Not `Sync`, as a `Reference`.
pub struct Session {
    imp: Imp,
    device_name: String,
    driver: DriverInfo,
}

enum Imp {
    Local(RefCell<Local>),
    Child(RefCell<Conn>),
}

impl Session {
    /// Creates the instance and device (see [`Reference::new`]) at `place`.
    pub fn new(options: &ReferenceOptions, place: Place) -> Result<Session> {
        match place {
            Place::InProcess => {
                let local = Local::new(options)?;
                let device_name = local.r.device_name().to_string();
                let driver = local.r.driver_info().clone();
                Ok(Session {
                    imp: Imp::Local(RefCell::new(local)),
                    device_name,
                    driver,
                })
            }
            Place::Child(command) => {
                let mut conn = Conn::spawn(command, options.timeout)?;
                let request = Request::New {
                    device: options.device.clone(),
                    robust_buffer_access: options.robust_buffer_access,
                    features: options.features.clone(),
                    optional_features: options.optional_features.clone(),
                    properties: options.properties.clone(),
                    timeout_ms: options.timeout.as_millis().min(u64::MAX as u128) as u64,
                };
                match conn.call(&request, &[], "creating the Vulkan device")? {
                    (
                        Reply::Created {
                            device_name,
                            driver,
                        },
                        _,
                    ) => Ok(Session {
                        imp: Imp::Child(RefCell::new(conn)),
                        device_name,
                        driver: driver.into(),
                    }),
                    (other, _) => Err(other.unexpected()),
                }
            }
        }
    }

    /// The device's name.
    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// The driver behind the device.
    pub fn driver_info(&self) -> &DriverInfo {
        &self.driver
    }

    /// The device's subgroup width.
    pub fn subgroup_size(&self) -> u32 {
        self.driver.subgroup_size
    }

    /// The device's smallest and largest subgroup sizes (see
    /// [`Reference::subgroup_size_range`]).
    pub fn subgroup_size_range(&self) -> (u32, u32) {
        (self.driver.min_subgroup_size, self.driver.max_subgroup_size)
    }

    /// A buffer holding `data` (see [`Reference::buffer`]).
    pub fn buffer(&self, data: &[u8]) -> Result<BufferId> {
        match &self.imp {
            Imp::Local(l) => l.borrow_mut().buffer(data).map(BufferId),
            Imp::Child(c) => c
                .borrow_mut()
                .call_id(&Request::Buffer, data, "creating a buffer")
                .map(BufferId),
        }
    }

    /// The buffer's bytes.
    pub fn read(&self, buffer: BufferId) -> Result<Vec<u8>> {
        match &self.imp {
            Imp::Local(l) => l.borrow().read(buffer.0),
            Imp::Child(c) => {
                let request = Request::Read { buffer: buffer.0 };
                match c.borrow_mut().call(&request, &[], "reading a buffer")? {
                    (Reply::Done, bytes) => Ok(bytes),
                    (other, _) => Err(other.unexpected()),
                }
            }
        }
    }

    /// Writes `bytes` at `offset` (see [`Buffer::write`]).
    pub fn write(&self, buffer: BufferId, offset: usize, bytes: &[u8]) -> Result<()> {
        match &self.imp {
            Imp::Local(l) => l.borrow().write(buffer.0, offset, bytes),
            Imp::Child(c) => {
                let request = Request::Write {
                    buffer: buffer.0,
                    offset: offset as u64,
                };
                c.borrow_mut()
                    .call_done(&request, bytes, "writing a buffer")
            }
        }
    }

    /// The buffer's device address (see [`Buffer::device_address`]).
    pub fn device_address(&self, buffer: BufferId) -> Result<u64> {
        match &self.imp {
            Imp::Local(l) => l.borrow().get(buffer.0)?.device_address(),
            Imp::Child(c) => {
                let request = Request::Address { buffer: buffer.0 };
                match c
                    .borrow_mut()
                    .call(&request, &[], "reading a buffer's device address")?
                {
                    (Reply::Address(a), _) => Ok(a),
                    (other, _) => Err(other.unexpected()),
                }
            }
        }
    }

    /// An image holding `data` (see [`Reference::image`]).
    pub fn image(&self, desc: &ImageDesc, data: &[u8]) -> Result<ImageId> {
        match &self.imp {
            Imp::Local(l) => l.borrow_mut().image(desc, data).map(ImageId),
            Imp::Child(c) => c
                .borrow_mut()
                .call_id(&Request::Image { desc: *desc }, data, "creating an image")
                .map(ImageId),
        }
    }

    /// The image's texels, every level (see [`Reference::read_image`]).
    pub fn read_image(&self, image: ImageId) -> Result<Vec<u8>> {
        match &self.imp {
            Imp::Local(l) => l.borrow().read_image(image.0),
            Imp::Child(c) => {
                let request = Request::ReadImage { image: image.0 };
                match c.borrow_mut().call(&request, &[], "reading an image")? {
                    (Reply::Done, bytes) => Ok(bytes),
                    (other, _) => Err(other.unexpected()),
                }
            }
        }
    }

    /// A sampler (see [`Reference::sampler`]).
    pub fn sampler(&self, desc: &SamplerDesc) -> Result<SamplerId> {
        match &self.imp {
            Imp::Local(l) => l.borrow_mut().sampler(desc).map(SamplerId),
            Imp::Child(c) => c
                .borrow_mut()
                .call_id(&Request::Sampler { desc: *desc }, &[], "creating a sampler")
                .map(SamplerId),
        }
    }

    /// Builds an acceleration structure from `scene` (see
    /// [`Reference::acceleration_structure`]).
    pub fn acceleration_structure(
        &self,
        scene: &scene::TopLevel,
    ) -> Result<AccelerationStructureId> {
        match &self.imp {
            Imp::Local(l) => l
                .borrow_mut()
                .acceleration_structure(scene)
                .map(AccelerationStructureId),
            Imp::Child(c) => c
                .borrow_mut()
                .call_id(
                    &Request::AccelerationStructure {
                        scene: WireScene::from(scene),
                    },
                    &[],
                    "building an acceleration structure",
                )
                .map(AccelerationStructureId),
        }
    }

    /// Creates a pipeline (see [`Reference::pipeline`]).
    pub fn pipeline(&self, desc: &PipelineDesc<'_>) -> Result<PipelineId> {
        match &self.imp {
            Imp::Local(l) => l.borrow_mut().pipeline(desc).map(PipelineId),
            Imp::Child(c) => {
                let request = Request::Pipeline {
                    entry: desc.entry.to_string(),
                    specialization: desc.specialization.to_vec(),
                    bindings: desc.bindings.iter().map(|b| (*b).into()).collect(),
                    push_constant_size: desc.push_constant_size,
                    require_full_subgroups: desc.require_full_subgroups,
                    allow_varying_subgroup_size: desc.allow_varying_subgroup_size,
                    required_subgroup_size: desc.required_subgroup_size,
                };
                let words: Vec<u8> = desc.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
                let doing = format!("creating the pipeline of entry point {:?}", desc.entry);
                c.borrow_mut()
                    .call_id(&request, &words, &doing)
                    .map(PipelineId)
            }
        }
    }

    /// Runs a pipeline and waits for it (see [`Reference::dispatch`]).
    pub fn dispatch(
        &self,
        pipeline: PipelineId,
        bound: &[SessionBound],
        push_constants: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        match &self.imp {
            Imp::Local(l) => l
                .borrow()
                .dispatch(pipeline.0, bound, push_constants, groups),
            Imp::Child(c) => {
                let request = Request::Dispatch {
                    pipeline: pipeline.0,
                    bound: bound.to_vec(),
                    groups,
                };
                c.borrow_mut()
                    .call_done(&request, push_constants, "running a dispatch")
            }
        }
    }
}

/// The child side: serves one [`Session`]'s requests from `input` to
/// `output` until `input` ends. Returns an error when either stream fails.
pub fn serve(input: impl Read, output: impl Write) -> io::Result<()> {
    let mut input = BufReader::new(input);
    let mut output = BufWriter::new(output);
    let mut local: Option<Local> = None;
    while let Some((request, payload)) = read_frame::<Request>(&mut input)? {
        let (reply, bytes) = match answer(&mut local, request, &payload) {
            Ok(r) => r,
            Err(e) => (Reply::failed(&e), Vec::new()),
        };
        write_frame(&mut output, &reply, &bytes)?;
        output.flush()?;
    }
    Ok(())
}

fn answer(local: &mut Option<Local>, request: Request, payload: &[u8]) -> Result<(Reply, Vec<u8>)> {
    if let Request::New {
        device,
        robust_buffer_access,
        features,
        optional_features,
        properties,
        timeout_ms,
    } = request
    {
        let l = Local::new(&ReferenceOptions {
            device,
            robust_buffer_access,
            features,
            optional_features,
            properties,
            timeout: Duration::from_millis(timeout_ms),
        })?;
        let reply = Reply::Created {
            device_name: l.r.device_name().to_string(),
            driver: l.r.driver_info().clone().into(),
        };
        *local = Some(l);
        return Ok((reply, Vec::new()));
    }
    let l = local
        .as_mut()
        .ok_or_else(|| Error::Remote("no device was created".into()))?;
    Ok(match request {
        Request::New { .. } => unreachable!("answered above"),
        Request::Buffer => (Reply::Id(l.buffer(payload)?), Vec::new()),
        Request::Read { buffer } => (Reply::Done, l.read(buffer)?),
        Request::Address { buffer } => {
            (Reply::Address(l.get(buffer)?.device_address()?), Vec::new())
        }
        Request::Image { desc } => (Reply::Id(l.image(&desc, payload)?), Vec::new()),
        Request::ReadImage { image } => (Reply::Done, l.read_image(image)?),
        Request::Sampler { desc } => (Reply::Id(l.sampler(&desc)?), Vec::new()),
        Request::AccelerationStructure { scene } => (
            Reply::Id(l.acceleration_structure(&scene.into())?),
            Vec::new(),
        ),
        Request::Write { buffer, offset } => {
            let offset = usize::try_from(offset)
                .map_err(|_| Error::Buffer(format!("offset {offset} is out of range")))?;
            l.write(buffer, offset, payload)?;
            (Reply::Done, Vec::new())
        }
        Request::Pipeline {
            entry,
            specialization,
            bindings,
            push_constant_size,
            require_full_subgroups,
            allow_varying_subgroup_size,
            required_subgroup_size,
        } => {
            if payload.len() % 4 != 0 {
                return Err(Error::InvalidSpirv(format!(
                    "{} bytes is not a whole number of words",
                    payload.len()
                )));
            }
            let words: Vec<u32> = payload
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let bindings: Vec<BindingDesc> = bindings.into_iter().map(Into::into).collect();
            let id = l.pipeline(&PipelineDesc {
                spirv: &words,
                entry: &entry,
                specialization: &specialization,
                bindings: &bindings,
                push_constant_size,
                require_full_subgroups,
                allow_varying_subgroup_size,
                required_subgroup_size,
            })?;
            (Reply::Id(id), Vec::new())
        }
        Request::Dispatch {
            pipeline,
            bound,
            groups,
        } => {
            l.dispatch(pipeline, &bound, payload, groups)?;
            (Reply::Done, Vec::new())
        }
    })
}

/// A `Reference` and what it made, by index.
struct Local {
    r: Reference,
    buffers: Vec<Buffer>,
    images: Vec<Image>,
    samplers: Vec<Sampler>,
    pipelines: Vec<Pipeline>,
    accels: Vec<AccelerationStructure>,
}

impl Local {
    fn new(options: &ReferenceOptions) -> Result<Local> {
        Ok(Local {
            r: Reference::new(options)?,
            buffers: Vec::new(),
            images: Vec::new(),
            samplers: Vec::new(),
            pipelines: Vec::new(),
            accels: Vec::new(),
        })
    }

    fn buffer(&mut self, data: &[u8]) -> Result<u32> {
        let b = self.r.buffer(data)?;
        self.buffers.push(b);
        Ok((self.buffers.len() - 1) as u32)
    }

    fn get(&self, id: u32) -> Result<&Buffer> {
        self.buffers
            .get(id as usize)
            .ok_or_else(|| Error::Buffer(format!("no buffer {id} in this session")))
    }

    fn read(&self, id: u32) -> Result<Vec<u8>> {
        Ok(self.get(id)?.read())
    }

    fn write(&self, id: u32, offset: usize, bytes: &[u8]) -> Result<()> {
        self.get(id)?.write(offset, bytes)
    }

    fn image(&mut self, desc: &ImageDesc, data: &[u8]) -> Result<u32> {
        let i = self.r.image(desc, data)?;
        self.images.push(i);
        Ok((self.images.len() - 1) as u32)
    }

    fn get_image(&self, id: u32) -> Result<&Image> {
        self.images
            .get(id as usize)
            .ok_or_else(|| Error::Image(format!("no image {id} in this session")))
    }

    fn get_image_from(&self, id: u32, base: u32) -> Result<&Image> {
        let image = self.get_image(id)?;
        image.from_level(base).ok_or_else(|| {
            Error::Image(format!(
                "image {id} has {} levels: no view from level {base}",
                image.desc.mip_levels
            ))
        })
    }

    fn read_image(&self, id: u32) -> Result<Vec<u8>> {
        self.r.read_image(self.get_image(id)?)
    }

    fn sampler(&mut self, desc: &SamplerDesc) -> Result<u32> {
        let s = self.r.sampler(desc)?;
        self.samplers.push(s);
        Ok((self.samplers.len() - 1) as u32)
    }

    fn get_sampler(&self, id: u32) -> Result<&Sampler> {
        self.samplers
            .get(id as usize)
            .ok_or_else(|| Error::Image(format!("no sampler {id} in this session")))
    }

    fn acceleration_structure(&mut self, scene: &scene::TopLevel) -> Result<u32> {
        let a = self.r.acceleration_structure(scene)?;
        self.accels.push(a);
        Ok((self.accels.len() - 1) as u32)
    }

    fn get_accel(&self, id: u32) -> Result<&AccelerationStructure> {
        self.accels.get(id as usize).ok_or_else(|| {
            Error::AccelerationStructure(format!("no acceleration structure {id} in this session"))
        })
    }

    fn pipeline(&mut self, desc: &PipelineDesc<'_>) -> Result<u32> {
        let p = self.r.pipeline(desc)?;
        self.pipelines.push(p);
        Ok((self.pipelines.len() - 1) as u32)
    }

    fn dispatch(
        &self,
        pipeline: u32,
        bound: &[SessionBound],
        push_constants: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        let p = self
            .pipelines
            .get(pipeline as usize)
            .ok_or(Error::Foreign("the pipeline"))?;
        let bound: Vec<Bound<'_>> = bound
            .iter()
            .map(|b| {
                let resource = match b.resource {
                    SessionResource::Buffer {
                        buffer,
                        offset,
                        range,
                    } => Resource::Buffer {
                        buffer: self.get(buffer.0)?,
                        offset,
                        range,
                    },
                    SessionResource::TexelBuffer {
                        buffer,
                        format,
                        offset,
                        range,
                    } => Resource::TexelBuffer {
                        buffer: self.get(buffer.0)?,
                        format,
                        offset,
                        range,
                    },
                    SessionResource::Image(i) => Resource::Image(self.get_image(i.0)?),
                    SessionResource::Sampler(s) => Resource::Sampler(self.get_sampler(s.0)?),
                    SessionResource::CombinedImageSampler(i, s) => {
                        Resource::CombinedImageSampler(self.get_image(i.0)?, self.get_sampler(s.0)?)
                    }
                    SessionResource::ImageFromLevel(i, base) => {
                        Resource::Image(self.get_image_from(i.0, base)?)
                    }
                    SessionResource::AccelerationStructure(a) => {
                        Resource::AccelerationStructure(self.get_accel(a.0)?)
                    }
                    SessionResource::CombinedImageSamplerFromLevel(i, s, base) => {
                        Resource::CombinedImageSampler(
                            self.get_image_from(i.0, base)?,
                            self.get_sampler(s.0)?,
                        )
                    }
                };
                Ok(Bound {
                    set: b.set,
                    binding: b.binding,
                    element: b.element,
                    resource,
                })
            })
            .collect::<Result<_>>()?;
        self.r.dispatch(p, &bound, push_constants, groups)
    }
}

// ------------------------------------------------------------ the process

/// What the reader thread passes on: a reply, the end of the stream
/// (`None`), or a broken one.
type Frame = io::Result<Option<(Reply, Vec<u8>)>>;

/// The parent's end of a child serving a session.
struct Conn {
    child: Child,
    to: Option<BufWriter<ChildStdin>>,
    from: Receiver<Frame>,
    /// How long one request may go unanswered.
    patience: Duration,
    /// Set once the child is gone: every later call fails with it.
    dead: Option<String>,
}

/// Beyond the dispatch time-out, what creating a device or a pipeline may
/// take (lavapipe compiles with LLVM).
const SLACK: Duration = Duration::from_secs(60);

impl Conn {
    fn spawn(mut command: Command, timeout: Duration) -> Result<Conn> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Crashed {
                doing: "starting".into(),
                how: format!("could not be started ({e})"),
            })?;
        let to = child.stdin.take().map(BufWriter::new);
        let stdout = child.stdout.take().ok_or_else(|| Error::Crashed {
            doing: "starting".into(),
            how: "has no stdout".into(),
        })?;
        // Replies are read on a thread, so that a request can be given up
        // after `patience` whatever the child does.
        let (tx, from) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let frame = read_frame::<Reply>(&mut r);
                let end = !matches!(frame, Ok(Some(_)));
                if tx.send(frame).is_err() || end {
                    return;
                }
            }
        });
        Ok(Conn {
            child,
            to,
            from,
            patience: timeout.saturating_add(SLACK),
            dead: None,
        })
    }

    fn call(&mut self, request: &Request, payload: &[u8], doing: &str) -> Result<(Reply, Vec<u8>)> {
        if let Some(how) = &self.dead {
            return Err(Error::Crashed {
                doing: doing.into(),
                how: format!("had already ended ({how})"),
            });
        }
        let sent = match self.to.as_mut() {
            Some(to) => write_frame(to, request, payload).and_then(|()| to.flush()),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        };
        let got = match sent {
            Ok(()) => self.from.recv_timeout(self.patience),
            // The child is gone: its status says how.
            Err(_) => Ok(Ok(None)),
        };
        match got {
            Ok(Ok(Some((
                Reply::Failed {
                    message,
                    unsupported,
                },
                _,
            )))) => Err(Reply::error(message, unsupported)),
            Ok(Ok(Some(reply))) => Ok(reply),
            // The child is gone, or is given up on: every later call fails.
            gone => {
                let how = if let Err(RecvTimeoutError::Timeout) = gone {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    format!(
                        "did not answer within {} s and was killed",
                        self.patience.as_secs()
                    )
                } else {
                    self.ended()
                };
                self.dead = Some(how.clone());
                Err(Error::Crashed {
                    doing: doing.into(),
                    how,
                })
            }
        }
    }

    fn call_id(&mut self, request: &Request, payload: &[u8], doing: &str) -> Result<u32> {
        match self.call(request, payload, doing)? {
            (Reply::Id(id), _) => Ok(id),
            (other, _) => Err(other.unexpected()),
        }
    }

    fn call_done(&mut self, request: &Request, payload: &[u8], doing: &str) -> Result<()> {
        match self.call(request, payload, doing)? {
            (Reply::Done, _) => Ok(()),
            (other, _) => Err(other.unexpected()),
        }
    }

    /// How the child ended (it closed its stdout): waits for it, up to a
    /// moment, and names the signal or exit status.
    fn ended(&mut self) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return describe(status),
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return "closed its output and was killed".into();
                }
            }
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // End of input ends `serve`; a child stuck in the driver is killed.
        self.to = None;
        let deadline = std::time::Instant::now() + Duration::from_secs(2);
        while std::time::Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn describe(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                4 => "SIGILL",
                6 => "SIGABRT",
                7 => "SIGBUS",
                8 => "SIGFPE",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                _ => "",
            };
            return if name.is_empty() {
                format!("crashed (signal {sig})")
            } else {
                format!("crashed ({name})")
            };
        }
    }
    match status.code() {
        Some(c) => format!("exited with status {c}"),
        None => format!("ended ({status})"),
    }
}

// ------------------------------------------------------------- the wire

/// One message: a JSON header of `json` bytes, then `payload` bytes raw.
/// `[json: u32 LE][json][payload: u64 LE][payload]`.
fn write_frame<T: Serialize>(w: &mut impl Write, header: &T, payload: &[u8]) -> io::Result<()> {
    let json = serde_json::to_vec(header).map_err(io::Error::other)?;
    let len = u32::try_from(json.len()).map_err(io::Error::other)?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(&json)?;
    w.write_all(&(payload.len() as u64).to_le_bytes())?;
    w.write_all(payload)
}

/// The largest header read: far above any request's.
const MAX_HEADER: u32 = 64 << 20;
/// The largest payload read (a buffer or a module).
const MAX_PAYLOAD: u64 = 16 << 30;

/// `None` at the end of the stream (before a frame starts).
fn read_frame<T: for<'de> Deserialize<'de>>(r: &mut impl Read) -> io::Result<Option<(T, Vec<u8>)>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_le_bytes(len);
    if len > MAX_HEADER {
        return Err(io::Error::other(format!("a {len}-byte header")));
    }
    let mut json = vec![0u8; len as usize];
    r.read_exact(&mut json)?;
    let header: T = serde_json::from_slice(&json).map_err(io::Error::other)?;
    let mut plen = [0u8; 8];
    r.read_exact(&mut plen)?;
    let plen = u64::from_le_bytes(plen);
    if plen > MAX_PAYLOAD {
        return Err(io::Error::other(format!("a {plen}-byte payload")));
    }
    let mut payload = Vec::new();
    r.take(plen).read_to_end(&mut payload)?;
    if payload.len() as u64 != plen {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(Some((header, payload)))
}

#[derive(Debug, Serialize, Deserialize)]
enum Request {
    New {
        device: Option<String>,
        robust_buffer_access: bool,
        features: Vec<String>,
        optional_features: Vec<String>,
        properties: Vec<String>,
        timeout_ms: u64,
    },
    /// Payload: the bytes.
    Buffer,
    Read {
        buffer: u32,
    },
    /// Payload: the bytes.
    Write {
        buffer: u32,
        offset: u64,
    },
    /// Payload: the module's words, little-endian.
    Pipeline {
        entry: String,
        specialization: Vec<(u32, Vec<u8>)>,
        bindings: Vec<WireBinding>,
        push_constant_size: u32,
        require_full_subgroups: bool,
        allow_varying_subgroup_size: bool,
        required_subgroup_size: Option<u32>,
    },
    /// Payload: the push constants.
    Dispatch {
        pipeline: u32,
        bound: Vec<SessionBound>,
        groups: [u32; 3],
    },
    /// Payload: every level's texels.
    Image {
        desc: ImageDesc,
    },
    ReadImage {
        image: u32,
    },
    Sampler {
        desc: SamplerDesc,
    },
    Address {
        buffer: u32,
    },
    AccelerationStructure {
        scene: WireScene,
    },
}

#[derive(Debug, Serialize, Deserialize)]
enum Reply {
    Created {
        device_name: String,
        driver: WireDriver,
    },
    Id(u32),
    /// A buffer's device address.
    Address(u64),
    /// Payload: a buffer's or image's bytes after `Read` or
    /// `ReadImage`, else empty.
    Done,
    /// The error's message, as the in-process error displays it; the
    /// unsupported features (device, names) when that is the error.
    Failed {
        message: String,
        unsupported: Option<(String, Vec<String>)>,
    },
}

impl Reply {
    fn failed(e: &Error) -> Reply {
        Reply::Failed {
            message: e.to_string(),
            unsupported: match e {
                Error::UnsupportedFeatures { device, names } => {
                    Some((device.clone(), names.clone()))
                }
                _ => None,
            },
        }
    }

    fn error(message: String, unsupported: Option<(String, Vec<String>)>) -> Error {
        match unsupported {
            Some((device, names)) => Error::UnsupportedFeatures { device, names },
            None => Error::Remote(message),
        }
    }

    fn unexpected(&self) -> Error {
        Error::Remote(format!(
            "unexpected reply from the Vulkan process: {self:?}"
        ))
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct WireDriver {
    name: String,
    version: String,
    api_version: String,
    used_api_version: String,
    subgroup_size: u32,
    min_subgroup_size: u32,
    max_subgroup_size: u32,
}

impl From<DriverInfo> for WireDriver {
    fn from(d: DriverInfo) -> Self {
        WireDriver {
            name: d.name,
            version: d.version,
            api_version: d.api_version,
            used_api_version: d.used_api_version,
            subgroup_size: d.subgroup_size,
            min_subgroup_size: d.min_subgroup_size,
            max_subgroup_size: d.max_subgroup_size,
        }
    }
}

impl From<WireDriver> for DriverInfo {
    fn from(d: WireDriver) -> Self {
        DriverInfo {
            name: d.name,
            version: d.version,
            api_version: d.api_version,
            used_api_version: d.used_api_version,
            subgroup_size: d.subgroup_size,
            min_subgroup_size: d.min_subgroup_size,
            max_subgroup_size: d.max_subgroup_size,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct WireBinding {
    set: u32,
    binding: u32,
    kind: BindingKind,
    count: u32,
}

impl From<BindingDesc> for WireBinding {
    fn from(b: BindingDesc) -> Self {
        WireBinding {
            set: b.set,
            binding: b.binding,
            kind: b.kind,
            count: b.count,
        }
    }
}

impl From<WireBinding> for BindingDesc {
    fn from(b: WireBinding) -> Self {
        BindingDesc {
            set: b.set,
            binding: b.binding,
            kind: b.kind,
            count: b.count,
        }
    }
}

/// A [`scene::TopLevel`] on the wire (the scene type itself has no
/// serde: runtime-loader does not depend on it).
#[derive(Debug, Serialize, Deserialize)]
struct WireScene {
    bottom: Vec<Vec<WireGeometry>>,
    instances: Vec<WireInstance>,
}

#[derive(Debug, Serialize, Deserialize)]
struct WireGeometry {
    /// Triangles: 9 floats each; boxes: 6 (min, max).
    triangles: bool,
    coords: Vec<f32>,
    opaque: bool,
    no_duplicate_any_hit: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct WireInstance {
    bottom: usize,
    transform: [[f32; 4]; 3],
    custom_index: u32,
    mask: u8,
    sbt_offset: u32,
    /// Cull disable, flip facing, force opaque, force no opaque.
    flags: [bool; 4],
}

impl From<&scene::TopLevel> for WireScene {
    fn from(s: &scene::TopLevel) -> Self {
        WireScene {
            bottom: s
                .bottom
                .iter()
                .map(|b| {
                    b.geometries
                        .iter()
                        .map(|g| {
                            let (triangles, coords) = match &g.primitives {
                                scene::Primitives::Triangles(t) => {
                                    (true, t.iter().flatten().flatten().copied().collect())
                                }
                                scene::Primitives::Boxes(b) => (
                                    false,
                                    b.iter()
                                        .flat_map(|a| a.min.iter().chain(&a.max))
                                        .copied()
                                        .collect(),
                                ),
                            };
                            WireGeometry {
                                triangles,
                                coords,
                                opaque: g.opaque,
                                no_duplicate_any_hit: g.no_duplicate_any_hit,
                            }
                        })
                        .collect()
                })
                .collect(),
            instances: s
                .instances
                .iter()
                .map(|i| WireInstance {
                    bottom: i.bottom,
                    transform: i.transform,
                    custom_index: i.custom_index,
                    mask: i.mask,
                    sbt_offset: i.sbt_offset,
                    flags: [
                        i.flags.triangle_facing_cull_disable,
                        i.flags.triangle_flip_facing,
                        i.flags.force_opaque,
                        i.flags.force_no_opaque,
                    ],
                })
                .collect(),
        }
    }
}

impl From<WireScene> for scene::TopLevel {
    fn from(s: WireScene) -> Self {
        let v3 = |c: &[f32]| [c[0], c[1], c[2]];
        scene::TopLevel {
            bottom: s
                .bottom
                .into_iter()
                .map(|geometries| scene::BottomLevel {
                    geometries: geometries
                        .into_iter()
                        .map(|g| scene::Geometry {
                            primitives: if g.triangles {
                                scene::Primitives::Triangles(
                                    g.coords
                                        .chunks_exact(9)
                                        .map(|t| [v3(&t[0..3]), v3(&t[3..6]), v3(&t[6..9])])
                                        .collect(),
                                )
                            } else {
                                scene::Primitives::Boxes(
                                    g.coords
                                        .chunks_exact(6)
                                        .map(|b| scene::Aabb {
                                            min: v3(&b[0..3]),
                                            max: v3(&b[3..6]),
                                        })
                                        .collect(),
                                )
                            },
                            opaque: g.opaque,
                            no_duplicate_any_hit: g.no_duplicate_any_hit,
                        })
                        .collect(),
                })
                .collect(),
            instances: s
                .instances
                .into_iter()
                .map(|i| scene::Instance {
                    bottom: i.bottom,
                    transform: i.transform,
                    custom_index: i.custom_index,
                    mask: i.mask,
                    sbt_offset: i.sbt_offset,
                    flags: scene::InstanceFlags {
                        triangle_facing_cull_disable: i.flags[0],
                        triangle_flip_facing: i.flags[1],
                        force_opaque: i.flags[2],
                        force_no_opaque: i.flags[3],
                    },
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scene crosses the pipe whole: every field of every geometry and
    /// instance survives the JSON round trip.
    #[test]
    fn scenes_cross_the_wire_unchanged() {
        let flags = scene::InstanceFlags {
            triangle_flip_facing: true,
            force_no_opaque: true,
            ..Default::default()
        };
        let s = scene::TopLevel {
            bottom: vec![
                scene::BottomLevel {
                    geometries: vec![scene::Geometry {
                        primitives: scene::Primitives::Triangles(vec![
                            [[0.5, -1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.25]],
                            [[1.0; 3], [2.0; 3], [3.0; 3]],
                        ]),
                        opaque: true,
                        no_duplicate_any_hit: false,
                    }],
                },
                scene::BottomLevel {
                    geometries: vec![scene::Geometry {
                        primitives: scene::Primitives::Boxes(vec![scene::Aabb {
                            min: [-1.0, -2.0, -3.0],
                            max: [1.0, 2.0, 3.5],
                        }]),
                        opaque: false,
                        no_duplicate_any_hit: true,
                    }],
                },
            ],
            instances: vec![
                scene::Instance {
                    transform: [
                        [0.0, -1.0, 0.0, 10.0],
                        [1.0, 0.0, 0.0, 0.5],
                        [0.0, 0.0, 1.0, -2.0],
                    ],
                    custom_index: 0xAB_CDEF,
                    mask: 0x0F,
                    sbt_offset: 77,
                    flags,
                    ..scene::Instance::of(1)
                },
                scene::Instance::of(0),
            ],
        };
        let json = serde_json::to_vec(&WireScene::from(&s)).unwrap();
        let back: WireScene = serde_json::from_slice(&json).unwrap();
        assert_eq!(scene::TopLevel::from(back), s);
    }

    #[test]
    fn frames_round_trip_and_a_truncated_one_is_an_error() {
        let mut bytes = Vec::new();
        let request = Request::Write {
            buffer: 3,
            offset: 16,
        };
        write_frame(&mut bytes, &request, &[1, 2, 3]).unwrap();
        write_frame(&mut bytes, &Request::Buffer, &[]).unwrap();
        let mut r = &bytes[..];
        match read_frame::<Request>(&mut r).unwrap() {
            Some((
                Request::Write {
                    buffer: 3,
                    offset: 16,
                },
                p,
            )) => assert_eq!(p, [1, 2, 3]),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            read_frame::<Request>(&mut r).unwrap(),
            Some((Request::Buffer, p)) if p.is_empty()
        ));
        assert!(read_frame::<Request>(&mut r).unwrap().is_none());
        // Cut inside the second frame's header.
        let mut cut = &bytes[..bytes.len() - 10];
        read_frame::<Request>(&mut cut).unwrap();
        assert!(read_frame::<Request>(&mut cut).is_err());
    }

    #[test]
    fn a_child_that_dies_is_a_crash_naming_the_signal_and_the_work() {
        // A "server" that reads one request and kills itself with SIGSEGV.
        let mut command = Command::new("sh");
        command.args(["-c", "head -c 4 >/dev/null; kill -SEGV $$"]);
        let e = Session::new(&ReferenceOptions::default(), Place::Child(command))
            .err()
            .expect("no session");
        let text = e.to_string();
        assert!(matches!(e, Error::Crashed { .. }), "{text}");
        assert!(
            text.contains("crashed (SIGSEGV)") && text.contains("creating the Vulkan device"),
            "{text}"
        );
    }

    #[test]
    fn a_child_that_does_not_answer_is_killed() {
        let mut command = Command::new("sleep");
        command.arg("30");
        let options = ReferenceOptions {
            timeout: Duration::ZERO,
            ..Default::default()
        };
        let mut conn = Conn::spawn(command, options.timeout).unwrap();
        conn.patience = Duration::from_millis(200);
        let start = std::time::Instant::now();
        let e = conn
            .call(&Request::Buffer, &[], "creating a buffer")
            .unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(10));
        assert!(e.to_string().contains("did not answer within"), "{e}");
        // Every later call fails at once.
        let e = conn.call(&Request::Buffer, &[], "reading").unwrap_err();
        assert!(e.to_string().contains("had already ended"), "{e}");
    }
}
