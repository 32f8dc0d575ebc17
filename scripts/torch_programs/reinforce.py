"""A REINFORCE agent's shape: a policy network, Categorical(logits=...), log_prob times the
return, an Adam step; actions are sampled, so only the deterministic part is compared."""
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 16)
        self.affine2 = nn.Linear(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        return torch.softmax(self.affine2(torch.relu(self.affine1(x))), dim=1)


def main():
    torch.manual_seed(543)
    policy = Policy()
    with torch.no_grad():
        for i, p in enumerate(policy.parameters()):
            p.copy_(torch.cos(torch.arange(p.numel(), dtype=torch.float32) + i).reshape(p.shape) * 0.2)
    optimizer = optim.Adam(policy.parameters(), lr=1e-2)
    eps = torch.finfo(torch.float32).eps
    states = torch.stack([torch.sin(torch.arange(4.0) + t) for t in range(6)])
    fixed_actions = torch.tensor([0, 1, 1, 0, 1, 0])
    for episode in range(3):
        for t in range(6):
            probs = policy(states[t].unsqueeze(0))
            m = Categorical(probs)
            sampled = m.sample()                       # the agent's own action (random)
            assert sampled.shape == (1,) and 0 <= sampled.item() < 2
            action = fixed_actions[t:t + 1]            # the one both libraries learn from
            policy.saved_log_probs.append(m.log_prob(action))
            policy.rewards.append(1.0 if action.item() == t % 2 else 0.0)
        R, returns = 0.0, []
        for r in policy.rewards[::-1]:
            R = r + 0.99 * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        loss = torch.cat([-lp * R for lp, R in zip(policy.saved_log_probs, returns)]).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        del policy.rewards[:]
        del policy.saved_log_probs[:]
        print(f"CHECK episode {episode} loss {loss.item():.6f} entropy {m.entropy().item():.6f}")


if __name__ == "__main__":
    main()
