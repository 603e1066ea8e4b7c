"""Provider contract backends: each answers the plugin's backwards ``llm`` invocations as one
official Dify model plugin and its provider would (chunk shapes, replayed fields, documented
refusals). ``CONTRACTS`` maps a name to its backend class; see ``base`` for the shared parts.
"""

from local_runner.contracts.anthropic import AnthropicContract
from local_runner.contracts.azure_openai import AzureOpenAIContract
from local_runner.contracts.azure_openai_responses import AzureOpenAIResponsesContract
from local_runner.contracts.base import ContractBackend, ProviderRejection, TaskBrain
from local_runner.contracts.bedrock import BedrockContract
from local_runner.contracts.bedrock_mantle import BedrockMantleContract
from local_runner.contracts.cohere import CohereContract
from local_runner.contracts.deepinfra import DeepInfraContract
from local_runner.contracts.deepseek import DeepSeekContract
from local_runner.contracts.fireworks import FireworksContract
from local_runner.contracts.gemini import GeminiContract
from local_runner.contracts.gpustack import GPUStackContract, GPUStackThinkingOffContract
from local_runner.contracts.hunyuan import HunyuanContract
from local_runner.contracts.minimax import MiniMaxContract
from local_runner.contracts.mistral import MistralContract
from local_runner.contracts.moonshot import MoonshotContract
from local_runner.contracts.ollama import OllamaContract
from local_runner.contracts.openai import OpenAIChatContract, OpenAIResponsesContract, OpenAIResponsesPhaseContract
from local_runner.contracts.openai_compatible import OpenAICompatibleContract
from local_runner.contracts.openai_compatible_responses import OpenAICompatibleResponsesContract
from local_runner.contracts.openrouter import OpenRouterContract
from local_runner.contracts.sagemaker import SageMakerContract
from local_runner.contracts.sdk_base import SDKBaseContract
from local_runner.contracts.stepfun import StepFunContract, StepFunWholeCallContract
from local_runner.contracts.tongyi import TongyiContract
from local_runner.contracts.vertex_ai import VertexAIContract
from local_runner.contracts.volcengine import VolcengineContract
from local_runner.contracts.xai import XAIContract
from local_runner.contracts.xinference import XinferenceContract
from local_runner.contracts.zhipuai import ZhipuAIContract

CONTRACTS: dict[str, type[ContractBackend]] = {
    backend.name: backend
    for backend in (
        DeepSeekContract,
        MoonshotContract,
        OpenAIChatContract,
        TongyiContract,
        OllamaContract,
        OpenAICompatibleContract,
        MiniMaxContract,
        AnthropicContract,
        GeminiContract,
        OpenAIResponsesContract,
        VertexAIContract,
        OpenAICompatibleResponsesContract,
        VolcengineContract,
        BedrockContract,
        SDKBaseContract,
        OpenRouterContract,
        AzureOpenAIContract,
        ZhipuAIContract,
        HunyuanContract,
        XinferenceContract,
        MistralContract,
        XAIContract,
        OpenAIResponsesPhaseContract,
        AzureOpenAIResponsesContract,
        BedrockMantleContract,
        FireworksContract,
        CohereContract,
        StepFunContract,
        StepFunWholeCallContract,
        GPUStackContract,
        GPUStackThinkingOffContract,
        DeepInfraContract,
        SageMakerContract,
    )
}

__all__ = ["CONTRACTS", "ContractBackend", "ProviderRejection", "TaskBrain"]
