// Three of Torc v0.10.0's own example specs, verbatim, as the JSON reader's acceptance texts
// (the unit tests do no file I/O). They come from NREL's Torc under this license:
//
// BSD 3-Clause License
//
// Copyright (c) 2025 Alliance for Sustainable Energy, LLC
//
// Redistribution and use in source and binary forms, with or without modification, are
// permitted provided that the following conditions are met:
//
// * Redistributions of source code must retain the above copyright notice, this list of
// conditions and the following disclaimer.
//
// * Redistributions in binary form must reproduce the above copyright notice, this list of
// conditions and the following disclaimer in the documentation and/or other materials provided
// with the distribution.
//
// * Neither the name of the copyright holder nor the names of its contributors may be used
// to endorse or promote products derived from this software without specific prior written
// permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY
// EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF
// MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL
// THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
// SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT
// OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
// HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR
// TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE,
// EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
#pragma once

namespace torc_examples {

// json/diamond_workflow.json5: comments, a trailing comma at the top level.
inline constexpr char const* diamond_workflow = R"json5({
  // Workflow metadata
  "name": "diamond_workflow",
  "user": "test_user",
  "description": "A diamond-shaped workflow demonstrating fan-out and fan-in job dependencies",

  // Job definitions
  "jobs": [
    {
      "name": "preprocess",
      "command": "bash tests/scripts/preprocess.sh -i ${files.input.f1} -o ${files.output.f2} -o ${files.output.f3}"
    },
    {
      "name": "work1",
      "command": "bash tests/scripts/work.sh -i ${files.input.f2} -o ${files.output.f4}"
    },
    {
      "name": "work2",
      "command": "bash tests/scripts/work.sh -i ${files.input.f3} -o ${files.output.f5}"
    },
    {
      "name": "postprocess",
      "command": "bash tests/scripts/postprocess.sh -i ${files.input.f4} -i ${files.input.f5} -o ${files.output.f6}"
    }
  ],
  
  // File definitions
  "files": [
    {
      "name": "f1",
      "path": "/Users/dthom/repos/torc/f1.json"
    },
    {
      "name": "f2",
      "path": "/Users/dthom/repos/torc/f2.json"
    },
    {
      "name": "f3",
      "path": "/Users/dthom/repos/torc/f3.json"
    },
    {
      "name": "f4",
      "path": "/Users/dthom/repos/torc/f4.json"
    },
    {
      "name": "f5",
      "path": "/Users/dthom/repos/torc/f5.json"
    },
    {
      "name": "f6",
      "path": "/Users/dthom/repos/torc/f6.json"
    }
  ],

})json5";

// json/hundred_jobs_parameterized.json5: comments, parameters.
inline constexpr char const* hundred_jobs_parameterized = R"json5({
  // Workflow metadata
  "name": "hundred_jobs_parameterized",
  "user": "testuser",
  "description": "A workflow with 100 independent jobs using parameterization",

  // Job definitions
  "jobs": [
    {
      "name": "job_{i:03d}",
      "command": "echo hello {i}",
      "resource_requirements": "minimal",
      "parameters": {
        "i": "1:100"
      }
    }
  ],
  
  // Resource requirements
  "resource_requirements": [
    {
      "name": "minimal",
      "num_cpus": 1,
      "num_gpus": 0,
      "num_nodes": 1,
      "memory": "1g",
      "runtime": "P0DT1M"
    }
  ],

})json5";

// json/hyperparameter_sweep_shared_params.json5: unquoted keys throughout.
inline constexpr char const* hyperparameter_sweep_shared_params = R"json5(// Machine Learning Hyperparameter Sweep Workflow with Shared Parameters
// Demonstrates using workflow-level shared parameters to avoid repeating parameter definitions
// This creates 3 * 3 * 2 = 18 training jobs with different hyperparameter combinations
//
// Compare this to hyperparameter_sweep.json5 - same result, but parameters defined only once!
{
  name: "hyperparameter_sweep_shared_params",
  user: "mluser",
  description: "Grid search over learning rate, batch size, and optimizer (using shared parameters)",

  // Workflow-level shared parameters - defined once, used by multiple jobs and files
  parameters: {
    lr: "[0.0001,0.001,0.01]",
    batch_size: "[16,32,64]",
    optimizer: "['adam','sgd']"
  },

  jobs: [
    // Prepare datasets (one-time setup jobs - no parameters needed)
    {
      name: "prepare_train_data",
      command: "python scripts/prepare_data.py --split=train --output=/data/train.pkl",
      resource_requirements: "data_prep",
      output_files: ["train_data"]
    },
    {
      name: "prepare_val_data",
      command: "python scripts/prepare_data.py --split=validation --output=/data/validation.pkl",
      resource_requirements: "data_prep",
      output_files: ["val_data"]
    },
    // Training jobs - uses shared parameters
    // This single job spec expands to 18 jobs
    {
      name: "train_lr{lr:.4f}_bs{batch_size}_opt{optimizer}",
      command: "python train.py --learning-rate={lr} --batch-size={batch_size} --optimizer={optimizer} --train-data=/data/train.pkl --val-data=/data/validation.pkl --model-output=/models/model_lr{lr:.4f}_bs{batch_size}_opt{optimizer}.pt --metrics-output=/results/metrics_lr{lr:.4f}_bs{batch_size}_opt{optimizer}.json",
      resource_requirements: "gpu_training",
      depends_on: ["prepare_train_data", "prepare_val_data"],
      input_files: ["train_data", "val_data"],
      output_files: [
        "model_lr{lr:.4f}_bs{batch_size}_opt{optimizer}",
        "metrics_lr{lr:.4f}_bs{batch_size}_opt{optimizer}"
      ],
      use_parameters: ["lr", "batch_size", "optimizer"]
    },
    // Aggregate results from all training runs
    {
      name: "aggregate_results",
      command: "python scripts/aggregate_metrics.py --input-dir=/results --output=/results/summary.csv",
      resource_requirements: "minimal",
      // This will be expanded to wait for all 18 training jobs
      depends_on: ["train_lr{lr:.4f}_bs{batch_size}_opt{optimizer}"],
      // Wait for all metrics files
      input_files: ["metrics_lr{lr:.4f}_bs{batch_size}_opt{optimizer}"],
      use_parameters: ["lr", "batch_size", "optimizer"]
    }
  ],

  files: [
    { name: "train_data", path: "/data/train.pkl" },
    { name: "val_data", path: "/data/validation.pkl" },
    // Model files - one per hyperparameter combination
    {
      name: "model_lr{lr:.4f}_bs{batch_size}_opt{optimizer}",
      path: "/models/model_lr{lr:.4f}_bs{batch_size}_opt{optimizer}.pt",
      use_parameters: ["lr", "batch_size", "optimizer"]
    },
    // Metrics files - one per hyperparameter combination
    {
      name: "metrics_lr{lr:.4f}_bs{batch_size}_opt{optimizer}",
      path: "/results/metrics_lr{lr:.4f}_bs{batch_size}_opt{optimizer}.json",
      use_parameters: ["lr", "batch_size", "optimizer"]
    }
  ],

  resource_requirements: [
    { name: "minimal", num_cpus: 1, num_gpus: 0, num_nodes: 1, memory: "2g", runtime: "PT5M" },
    { name: "data_prep", num_cpus: 4, num_gpus: 0, num_nodes: 1, memory: "8g", runtime: "PT30M" },
    { name: "gpu_training", num_cpus: 8, num_gpus: 1, num_nodes: 1, memory: "32g", runtime: "PT2H" }
  ]
})json5";

}  // namespace torc_examples
