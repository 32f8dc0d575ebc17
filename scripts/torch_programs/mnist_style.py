"""The official examples' shape: pick a device, seed everything, train a small classifier with
Adadelta and a StepLR schedule, save and reload the state dict."""
import argparse

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.dropout = nn.Dropout(0.0)
        self.fc1 = nn.Linear(4 * 3 * 3, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout(torch.flatten(x, 1))
        return F.log_softmax(self.fc1(x), dim=1)


def init(model):
    """Weights that do not depend on the random generator, so both libraries start alike."""
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape) * (1 + 0.1 * i))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-cuda", action="store_true")
    parser.add_argument("--no-mps", action="store_true")
    args = parser.parse_args([])
    use_cuda = not args.no_cuda and torch.cuda.is_available()
    use_mps = not args.no_mps and torch.backends.mps.is_available()
    if torch.accelerator.is_available():
        device = torch.accelerator.current_accelerator()
    elif use_cuda:
        device = torch.device("cuda")
    elif use_mps:
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    torch.manual_seed(1)
    torch.cuda.manual_seed_all(1)
    cudnn.benchmark = True
    cudnn.deterministic = True
    kwargs = {"num_workers": 1, "pin_memory": True} if use_cuda else {}
    x = torch.linspace(-1, 1, 8 * 64).reshape(8, 1, 8, 8)
    y = torch.arange(8) % 10
    data = torch.utils.data.TensorDataset(x, y)
    loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=False, **kwargs)
    model = Net().to(device)
    init(model)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(3):
        model.train()
        for data_, target in loader:
            data_, target = data_.to(device), target.to(device)
            optimizer.zero_grad()
            loss = F.nll_loss(model(data_), target)
            loss.backward()
            optimizer.step()
        scheduler.step()
        print(f"CHECK epoch {epoch} loss {loss.item():.6f} lr {scheduler.get_last_lr()[0]:.6f}")
    torch.save(model.state_dict(), "mnist_cnn.pt")
    model.load_state_dict(torch.load("mnist_cnn.pt"))
    model.eval()
    with torch.no_grad():
        out = model(x)
    print(f"CHECK correct {out.argmax(1).eq(y).sum().item()}")
    print("device", device.type, "cuda", torch.cuda.is_available(), torch.cuda.device_count())


if __name__ == "__main__":
    main()
