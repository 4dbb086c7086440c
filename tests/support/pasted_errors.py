"""What a reader pastes into the site search for each ``% error:`` / ``% warning:`` entry
(:func:`entries`), in the forms they paste it (:func:`forms`), and :data:`REAL_LINES`: lines as
readers paste them, from torch's messages, older ones too (tests/harness/test_error_search.py)."""

import re
from dataclasses import dataclass
from pathlib import Path

from torchsheet_harness.locations import page_files
from torchsheet_harness.pages.markers import messages_of
from torchsheet_harness.pages.messages import shown_outputs
from torchsheet_harness.pages.page import read_page

CLASS = re.compile(r"(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning)\b")
#: A number not inside a word ("mat1", "FP16", "LogBackward0" keep theirs), nor an address.
FREE_NUMBER = re.compile(r"(?<![A-Za-z0-9_])\d+(?!x[0-9a-f])")
ADDRESS = re.compile(r"0x[0-9a-f]+")
#: A quoted name: a parameter ("heads.cat.weight"), a grad_fn ('LogBackward0') or a type.
QUOTED_NAME = re.compile(r"""(['"])(?P<name>[A-Za-z_][\w.]*)\1""")
OTHER_PARAMETERS = ("encoder.proj.weight", "encoder.proj.bias", "decoder.out.weight")
PATH = re.compile(r"(?<![\w.])(?:/[\w.-]+){2,}")
FRAMES = (
    "Traceback (most recent call last):\n"
    '  File "/home/user/train.py", line 42, in <module>\n'
    "    main()\n"
    '  File "/home/user/train.py", line 37, in main\n'
    "    loss = train_step(model, batch)\n"
)
SITE = "/home/user/venv/lib/python3.11/site-packages"
#: Lines readers paste, from torch's messages (and older versions'), and the page answering.
REAL_LINES = {
    "RuntimeError: Expected all tensors to be on the same device, but found at least two "
    "devices, cuda:0 and cpu! (when checking argument for argument mat1 in method "
    "wrapper_CUDA_addmm)": "troubleshooting/modules",
    "RuntimeError: Expected all tensors to be on the same device, but got mat1 is on cpu, "
    "different from other tensors on cuda:0 (when checking argument in method "
    "wrapper_CUDA_addmm)": "troubleshooting/modules",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total "
    "capacity of 79.14 GiB of which 6.75 MiB is free. Including non-PyTorch memory, this "
    "process has 79.13 GiB memory in use.": "troubleshooting/memory",
    "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 79.14 GiB total "
    "capacity; 78.21 GiB already allocated; 6.75 MiB free; 78.50 GiB reserved in total by "
    "PyTorch)": "troubleshooting/memory",
    "/home/user/train.py:61: UserWarning: Detected call of `lr_scheduler.step()` before "
    "`optimizer.step()`. In PyTorch 1.1.0 and later, you should call them in the opposite "
    "order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in "
    "PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate\n"
    "  scheduler.step()": "troubleshooting/numerics",
    "RuntimeError: expected scalar type Long but found Float": "troubleshooting/losses",
    "train.py: error: unrecognized arguments: --local-rank=0": "troubleshooting/distributed",
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x2048 and 512x10)": (
        "troubleshooting/modules"
    ),
    "RuntimeError: Error(s) in loading state_dict for ResNet:\n\tMissing key(s) in state_dict: "
    '"conv1.weight", "bn1.weight".\n\tUnexpected key(s) in state_dict: "module.conv1.weight", '
    '"module.bn1.weight".': "troubleshooting/saving",
    "_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so "
    "you have two options, do those steps only if you trust the source of the checkpoint.": (
        "troubleshooting/saving"
    ),
    "WeightsUnpickler error: Unsupported global: GLOBAL models.resnet.ResNet was not an allowed "
    "global by default. Please use `torch.serialization.add_safe_globals([models.resnet.ResNet])"
    "` or the `torch.serialization.safe_globals([models.resnet.ResNet])` context manager to "
    "allowlist this global if you trust this class/function.": "troubleshooting/saving",
    "RuntimeError: one of the variables needed for gradient computation has been modified by an "
    "inplace operation: [torch.cuda.FloatTensor [256, 512]], which is output 0 of "
    "ReluBackward0, is at version 3; expected version 2 instead. Hint: enable anomaly detection "
    "to find the operation that failed to compute its gradient, with "
    "torch.autograd.set_detect_anomaly(True).": "troubleshooting/autograd",
    "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.": (
        "troubleshooting/numerics"
    ),
    "RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 "
    "and [3, 256, 256] at entry 3": "troubleshooting/data",
    "RuntimeError: Expected to have finished reduction in the prior iteration before starting a "
    "new one. This error indicates that your module has parameters that were not used in "
    "producing loss. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
    "making sure all `forward` function outputs participate in calculating loss.": (
        "troubleshooting/distributed"
    ),
    # A whole traceback (torch 2.13's line numbers): the worker's own one follows the message.
    "Traceback (most recent call last):\n"
    '  File "/home/user/train.py", line 58, in <module>\n'
    "    for images, labels in loader:\n"
    f'  File "{SITE}/torch/utils/data/dataloader.py", line 725, in __next__\n'
    "    data = self._next_data()\n"
    "           ^^^^^^^^^^^^^^^^^\n"
    f'  File "{SITE}/torch/utils/data/dataloader.py", line 1529, in _next_data\n'
    "    return self._process_data(data, worker_id)\n"
    f'  File "{SITE}/torch/utils/data/dataloader.py", line 1567, in _process_data\n'
    "    data.reraise()\n"
    f'  File "{SITE}/torch/_utils.py", line 794, in reraise\n'
    "    raise exception\n"
    "KeyError: Caught KeyError in DataLoader worker process 0.\n"
    "Original Traceback (most recent call last):\n"
    f'  File "{SITE}/torch/utils/data/_utils/worker.py", line 374, in _worker_loop\n'
    "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n"
    f'  File "{SITE}/torch/utils/data/_utils/fetch.py", line 54, in fetch\n'
    "    data = [self.dataset[idx] for idx in possibly_batched_index]\n"
    '  File "/home/user/train.py", line 31, in __getitem__\n'
    "    label = self.labels[name]\n"
    "KeyError: 'cat_0042.jpg'\n": "troubleshooting/data",
}


@dataclass(frozen=True)
class Entry:
    page: str  # under docs/
    line: int  # the marker's
    message: str  # the marker's
    printed: str  # what the block shows torch printing, with its class, on one line
    cls: str  # the class printed before the message ('' for none)
    aliases: tuple[str, ...]


def entries(docs: Path) -> list[Entry]:
    """Every marker under ``docs``, in page order."""
    found = []
    for path in page_files(docs):
        for block in read_page(path).blocks:
            for message in messages_of(block.markers):
                printed = shown_line(block.code, block.output, message.kind, message.text)
                cls = named[0] if (named := CLASS.search(printed)) else ""
                aliases = tuple(f"{cls}: {old}" if cls else old for old, _ in message.aliases)
                name = path.relative_to(docs).as_posix()
                found.append(Entry(name, message.line, message.text, printed, cls, aliases))
    return found


def shown_line(code: str, output: str | None, kind: str, message: str) -> str:
    """What the block shows torch printing: the lines from the exception's class through the
    one with ``message`` (a doctest), else the output line with it, as one line, without the
    doctest's ``...`` (the reader's own text there is unknown). A warning shown without its
    category gets Python's default, ``UserWarning``."""
    raised, printed = shown_outputs(code, output)
    head = " ".join(message.split()[:3])
    for text in raised if kind == "error" else printed:
        lines = text.splitlines()
        at = next((i for i, line in enumerate(lines) if head in " ".join(line.split())), None)
        if at is None:
            continue
        first = 0 if kind == "error" and code.lstrip().startswith(">>>") else at
        printed_line = " ".join(lines[first : at + 1]).replace("0x...", "0x7f3a2c1d5e40")
        printed_line = " ".join(printed_line.replace("...", " ").split())
        if kind == "warning":
            printed_line = re.sub(r"^(\w+Warning):? ", r"\1: ", printed_line)
            if not CLASS.match(printed_line):
                printed_line = f"UserWarning: {printed_line}"
        return printed_line
    raise ValueError(f"{message!r} is not in what the block shows")


def other_run(text: str) -> str:
    """``text`` as another run prints it: other numbers, quoted names and paths."""
    parameters = iter(OTHER_PARAMETERS * 9)

    def other(quoted: re.Match[str]) -> str:
        name = quoted["name"]
        if re.fullmatch(r"\w+Backward\d+", name):
            name = "SqrtBackward0"
        elif not name[0].isupper():  # a type ('NoneType') is the same in every run
            name = next(parameters)
        return quoted[1] + name + quoted[1]

    text = QUOTED_NAME.sub(other, ADDRESS.sub("0x55d0c8a1b2f0", text))
    text = PATH.sub("/scratch/run7/checkpoint.pt", text)
    return FREE_NUMBER.sub(lambda number: str(int(number[0]) * 3 + 7), text)


def cut_short(text: str) -> str:
    """The first half of ``text``'s words (a line cut short, or the part a reader copied)."""
    words = text.split()
    return " ".join(words[: (len(words) + 1) // 2])


def in_traceback(text: str) -> str:
    """``text`` under a traceback's header and two frames, each line as the reader copied it."""
    return FRAMES + text + "\n"


FORMS = {"printed": str, "other-run": other_run, "cut-short": cut_short, "traceback": in_traceback}


def forms(entry: Entry) -> list[tuple[str, str]]:
    """(form, text pasted) for the entry: each of :data:`FORMS`, then each alias as printed."""
    pasted = [(form, make(entry.printed)) for form, make in FORMS.items()]
    return pasted + [(f"alias-{i}", alias) for i, alias in enumerate(entry.aliases, 1)]
